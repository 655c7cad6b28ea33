// GET …/criteria/report while the competition is written: every report is of one state of the
// competition, never a mix of the state before a write and the state after it. The writes move a
// task in and out of the chosen stages (PUT …/tasks, one transaction), so a report whose criteria
// were read before a move and whose verdicts after (or whose verdicts were read partly before and
// partly after) breaks the identities below. Every task has the same runs per party, each graded on
// every criterion of its task, so in every state and every group:
//   verdicts of a party = that party's runs on a task × the group's criteria,
//   pooled = baseline + the sum over the miners.
// The first test makes the move at the one place it is sure to fall between the report's reads:
// once the report's first read from the store has answered (whatever its repository method is
// called). The second lets moves and reads run freely: on SQLite the moves come between the steps
// of the scan (src/db/judges.ts); on PostgreSQL, where the reads and the moves run on connections
// of their own, a move falls between two statements of a read only now and then.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../src/db/contract.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const DATA = new URL('../../fixtures/swe-atlas-qna/', import.meta.url);
const ROWS = readFileSync(new URL('tasks.jsonl', DATA), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .slice(0, 3)
  .map((l) => JSON.parse(l) as { task_id: string; rubric: string });
const JUDGE = JSON.parse(readFileSync(new URL('judge.json', DATA), 'utf8')) as Record<string, unknown>;
const CRITERIA = ROWS.map((row) => (JSON.parse(row.rubric) as { id: string }[]).map((c) => c.id));
/** Runs on every task per party (null: the baseline): 3,000 runs, three steps of the SQLite scan. */
const RUNS_PER_TASK = new Map<string | null, number>([
  [null, 200],
  ['5Miner-a', 300],
  ['5Miner-b', 500],
]);
/** The task moved in and out of the chosen stages. */
const MOVED = ROWS[2]!.task_id;
const MOVES = 40;

/** Run once where the report's first read from the store has answered, before it reads on; then cleared. */
let pause: (() => Promise<void>) | null = null;
const takePause = async () => {
  const p = pause;
  pause = null;
  await p?.();
};
/** The store, its stability report's reads (whatever their names) followed by the pause. */
function pausing(store: Store): Store {
  const judges: Record<string, unknown> = { ...store.judges };
  for (const [name, fn] of Object.entries(store.judges) as [string, (...args: unknown[]) => unknown][]) {
    if (!name.startsWith('stability')) continue;
    judges[name] = (...args: unknown[]) => {
      const out = fn.apply(store.judges, args);
      if (out instanceof Promise) return out.then(async (v: unknown) => (await takePause(), v));
      return (async function* () {
        for await (const step of out as AsyncIterable<unknown>) {
          yield step;
          await takePause();
        }
      })();
    };
  }
  return { ...store, judges: judges as unknown as Store['judges'] };
}

let t: TestApp;
beforeEach(async () => {
  pause = null;
  t = await testApp({ wrapStore: pausing });
  await seedCompetition(t, 'c', { name: 'QnA', judgeVotes: 5 });
  const imported = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/tasks/import?stage=evaluation',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    payload: ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n',
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  const judge = await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: JUDGE });
  expect(judge.status, JSON.stringify(judge.body)).toBe(200);
  const runs: unknown[] = [];
  for (const [party, n] of RUNS_PER_TASK) {
    for (let i = 0; i < n; i++) {
      ROWS.forEach((row, k) =>
        runs.push({
          // Ids spread every task and party over every step of the scan.
          runId: `r${String((i * 7919 + k * 104729 + (party?.length ?? 0)) % 1_000_003).padStart(7, '0')}-${party ?? 'b'}-${k}-${i}`,
          taskId: row.task_id,
          ...(party ? { kind: 'miner', minerHotkey: party } : { kind: 'baseline' }),
          tokens: { input: 1000, output: 200 },
          rubricVotes: CRITERIA[k]!.map((criterionId, c) => ({
            criterionId,
            votes: Array.from({ length: 5 }, (_, v) => ({ verdict: v < (i + c) % 6 ? 'YES' : 'NO' })),
          })),
          judge: { digest: judge.body.digest },
          answerDate: '2026-11-30',
        }),
      );
    }
  }
  for (let i = 0; i < runs.length; i += 500) {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: runs.slice(i, i + 500) },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  }
});
afterEach(async () => t.close());

interface Stats {
  verdicts: number;
  met: number;
  split: number;
}
interface Group {
  change: string | null;
  polarity: string;
  criteria: number;
  pooled: Stats;
  baseline: Stats;
  miners: Record<string, Stats>;
}

/** What in a report breaks the identities of one state (empty: none). */
function inconsistencies(groups: Group[]): string[] {
  const wrong: string[] = [];
  for (const g of groups) {
    const name = `${g.change ?? 'unchanged'}/${g.polarity}`;
    for (const [party, runs] of RUNS_PER_TASK) {
      const got = party === null ? g.baseline.verdicts : (g.miners[party]?.verdicts ?? 0);
      if (got !== runs * g.criteria)
        wrong.push(
          `${name}: ${party ?? 'baseline'} has ${got} verdicts on ${g.criteria} criteria (${runs} runs a task)`,
        );
    }
    for (const field of ['verdicts', 'met', 'split'] as const) {
      const parts = g.baseline[field] + Object.values(g.miners).reduce((s, m) => s + m[field], 0);
      if (g.pooled[field] !== parts) wrong.push(`${name}: pooled ${field} ${g.pooled[field]}, parts ${parts}`);
    }
  }
  return wrong;
}

const move = async (stage: string) => {
  const res = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: MOVED, type: 'swe_atlas_qna', stage }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const report = async () => {
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as { groups: Group[] };
};
const criteriaOf = (r: { groups: Group[] }) => r.groups.reduce((s, g) => s + g.criteria, 0);

it('reads a report from the state it started on when a task leaves its stages between its reads', async () => {
  // The first read since the runs were posted, with the move made after its first read answered.
  pause = () => move('screener_1');
  const during = await report();
  expect(pause).toBeNull();
  expect(inconsistencies(during.groups)).toEqual([]);
  expect(criteriaOf(during)).toBe(CRITERIA.flat().length);
  expect(during.groups[0]!.pooled.verdicts).toBeGreaterThan(0);
  const after = await report();
  expect(inconsistencies(after.groups)).toEqual([]);
  expect(criteriaOf(after)).toBe(CRITERIA.flat().length - CRITERIA[2]!.length);
});

it('reads every report from one state of the competition while tasks move in and out of its stages', async () => {
  let moving = true;
  const found: string[] = [];
  const criteriaSeen = new Set<number>();
  const mover = (async () => {
    try {
      // MOVES at least, and on until reports were read in both states (a loaded machine may give
      // the reads few turns between the moves), within a bound.
      for (let i = 0; i < MOVES || (criteriaSeen.size < 2 && i < MOVES * 10); i++)
        await move(i % 2 === 0 ? 'screener_1' : 'evaluation');
    } finally {
      moving = false;
    }
  })();
  let reads = 0;
  while (moving) {
    const r = await report();
    reads += 1;
    criteriaSeen.add(criteriaOf(r));
    const wrong = inconsistencies(r.groups);
    if (wrong.length > 0) found.push(wrong[0]!);
    // A kept report is answered without a turn of the event loop: let the writes have theirs.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await mover;
  expect(found.slice(0, 3), `${found.length} of ${reads} reports mix two states`).toEqual([]);
  // Not vacuous: reports were read in both states while the writes went on.
  expect(criteriaSeen.size).toBe(2);
});
