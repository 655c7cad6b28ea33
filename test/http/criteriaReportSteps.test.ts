// GET …/criteria/report over a competition with more graded runs than one step of the store's scan
// reads (src/db/judges.ts, 1,024 runs a step on SQLite): the verdicts summed over every step equal
// those computed here from the votes sent; on SQLite the report's first read gives the event loop
// a turn per step, so other requests go on meanwhile, and concurrent first reads share one scan;
// and a judge set while the verdicts are being read leaves them as they stood when the read began
// (test/http/criteriaReportConsistent.test.ts: the criteria and the verdicts of one state).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const ROWS = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .slice(0, 3)
  .map((l) => JSON.parse(l) as { task_id: string; rubric: string });
const JUDGE = JSON.parse(
  readFileSync(new URL('../../fixtures/swe-atlas-qna/judge.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const RUBRICS = ROWS.map((row) =>
  (JSON.parse(row.rubric) as { id: string; annotations: { type: string } }[]).map((c) => ({
    id: c.id,
    positive: c.annotations.type.startsWith('positive'),
  })),
);
/** Four steps of the SQLite scan, the last one partly filled. */
const RUNS = 3500;
const MINERS = ['5Miner-a', '5Miner-b', '5Miner-c', '5Miner-d'];

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'QnA', judgeVotes: 5 });
  const res = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/tasks/import?stage=evaluation',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    payload: ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterEach(async () => t.close());

/** Run i: on task i mod 3, by the baseline or a miner, (i·7 + k) mod 6 YES votes of 5 on criterion k. */
const taskOf = (i: number) => i % ROWS.length;
const partyOf = (i: number) => (i % 5 === 0 ? null : MINERS[i % 4]!);
const yesOf = (i: number, k: number) => (i * 7 + k) % 6;

async function postRuns(digest: string) {
  const runs = Array.from({ length: RUNS }, (_, i) => {
    const miner = partyOf(i);
    return {
      runId: `r${i}`,
      taskId: ROWS[taskOf(i)]!.task_id,
      ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
      tokens: { input: 1000, output: 200 },
      rubricVotes: RUBRICS[taskOf(i)]!.map((c, k) => ({
        criterionId: c.id,
        votes: Array.from({ length: 5 }, (_, v) => ({ verdict: v < yesOf(i, k) ? 'YES' : 'NO' })),
      })),
      judge: { digest },
      answerDate: '2026-11-30',
    };
  });
  for (let i = 0; i < runs.length; i += 500) {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: runs.slice(i, i + 500) },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  }
}

const putJudge = async (j: Record<string, unknown>) => {
  const res = await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: j });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.digest as string;
};

/** The verdicts per (task, criterion, miner or baseline) as SPEC 7 grades the votes sent. */
function expectedTallies() {
  const sums = new Map<string, { verdicts: number; met: number; split: number }>();
  for (let i = 0; i < RUNS; i++) {
    RUBRICS[taskOf(i)]!.forEach((c, k) => {
      const yes = yesOf(i, k);
      const key = `${ROWS[taskOf(i)]!.task_id}/${c.id}/${partyOf(i) ?? ''}`;
      const s = sums.get(key) ?? { verdicts: 0, met: 0, split: 0 };
      sums.set(key, s);
      s.verdicts += 1;
      s.met += yes * 2 > 5 === c.positive ? 1 : 0;
      s.split += yes !== 0 && yes !== 5 ? 1 : 0;
    });
  }
  return sums;
}

/** The store's tallies summed over every step, and how many steps there were. */
async function readTallies(between?: (step: number) => Promise<void>) {
  const sums = new Map<string, { verdicts: number; met: number; split: number }>();
  let steps = 0;
  for await (const step of t.store.judges.stabilityInput('c', ['evaluation'])) {
    if ('criteria' in step) continue;
    steps += 1;
    for (const x of step.tallies) {
      const key = `${x.taskId}/${x.criterionId}/${x.hotkey ?? ''}`;
      const s = sums.get(key) ?? { verdicts: 0, met: 0, split: 0 };
      sums.set(key, s);
      s.verdicts += x.verdicts;
      s.met += x.met;
      s.split += x.split;
    }
    await between?.(steps);
  }
  return { sums, steps };
}

it('sums every step of the scan, and on SQLite lets the event loop turn a step at a time', async () => {
  await postRuns(await putJudge(JUDGE));
  const want = expectedTallies();
  const { sums, steps } = await readTallies();
  expect(Object.fromEntries(sums)).toEqual(Object.fromEntries(want));
  if (t.engine === 'sqlite') expect(steps).toBeGreaterThanOrEqual(Math.ceil(RUNS / 1024));

  // The first read of the report after a write, with a turn of the event loop counted meanwhile:
  // a scan in one piece would leave a handful, whatever the number of runs.
  let turns = 0;
  let reading = true;
  const spin = () => {
    if (!reading) return;
    turns += 1;
    setImmediate(spin);
  };
  spin();
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' });
  reading = false;
  expect(res.status).toBe(200);
  if (t.engine === 'sqlite') expect(turns).toBeGreaterThan(Math.ceil(RUNS / 1024));
  const pooled = (res.body.groups as { pooled: { verdicts: number; met: number; split: number } }[]).reduce(
    (s, g) => ({
      verdicts: s.verdicts + g.pooled.verdicts,
      met: s.met + g.pooled.met,
      split: s.split + g.pooled.split,
    }),
    { verdicts: 0, met: 0, split: 0 },
  );
  const all = [...want.values()].reduce((s, x) => ({
    verdicts: s.verdicts + x.verdicts,
    met: s.met + x.met,
    split: s.split + x.split,
  }));
  expect(pooled).toEqual(all);
  expect(Object.keys(res.body.groups[0].miners)).toEqual(MINERS);

  // Concurrent first reads after a write share one scan.
  const judges = t.store.judges;
  const scan = judges.stabilityInput.bind(judges);
  let scans = 0;
  judges.stabilityInput = (...args) => {
    scans += 1;
    return scan(...args);
  };
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers: admin });
  const reads = await Promise.all(
    [1, 2, 3].map(() => t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' })),
  );
  expect(scans).toBe(1);
  expect(reads.map((r) => r.body)).toEqual([reads[0]!.body, reads[0]!.body, reads[0]!.body]);
  expect(reads[0]!.body).not.toEqual(res.body);
});

it('never mixes the runs counted before and after a judge set while the verdicts are read', async () => {
  await postRuns(await putJudge(JUDGE));
  const want = expectedTallies();
  // After the first step the judge changes: every run sent so far becomes stale. The scan goes on
  // reading the state it started on, where they all count.
  const { sums } = await readTallies(async (step) => {
    if (step === 1) await putJudge({ ...JUDGE, model: 'another-judge' });
  });
  expect(Object.fromEntries(sums)).toEqual(Object.fromEntries(want));
  const { sums: after } = await readTallies();
  expect(after.size).toBe(0);
});
