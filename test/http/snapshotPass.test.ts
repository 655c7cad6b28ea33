// The periodic snapshot pass (services/snapshotPass.ts, SCORING_SNAPSHOT_INTERVAL): a snapshot of
// each competition whose input, stages or settings changed since its last one, on the pass after
// every kind of change, and none of the others; a competition whose snapshot fails is reported by
// its id, and the pass goes on to the competitions after it. An unchanged competition is skipped
// without reading its runs or scoring it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { RULES_VERSION } from '../../src/scoring/index.js';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

async function competitionWithARun(id: string) {
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}`, headers: admin, payload: { name: id } })).status,
  ).toBe(201);
  const tasks = { tasks: [{ id: 't', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: tasks })).status,
  ).toBe(200);
  const runs = [{ runId: `${id}-1`, taskId: 't', kind: 'baseline', attemptNo: 1, resolved: true }];
  const res = await t.call({ method: 'POST', url: `/v1/competitions/${id}/runs`, headers: admin, payload: { runs } });
  expect(res.status).toBe(200);
}

/** One pass; answers how many snapshots it took, and fails the test on any competition's failure. */
async function pass(): Promise<number> {
  const failed: string[] = [];
  const taken = await t.app.services.snapshots.takeChanged((id, err) => failed.push(`${id}: ${String(err)}`));
  expect(failed).toEqual([]);
  return taken;
}

async function call(method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: Json, headers = admin) {
  const res = await t.call({ method, url: `/v1/competitions/${url}`, headers, ...(payload ? { payload } : {}) });
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

const latestSeq = async (id: string) =>
  (await t.call({ method: 'GET', url: `/v1/competitions/${id}/snapshots/latest` })).body.seq as number;

/** `scoring_computation_seconds_count` on /metrics: the competitions scored so far. */
async function scorings(): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/^scoring_computation_seconds_count (\d+)$/m.exec(text)![1]);
}

/** A pass that takes no snapshot and scores no competition: every one was skipped without its runs. */
async function skippingPass() {
  const scored = await scorings();
  expect(await pass()).toBe(0);
  expect(await scorings()).toBe(scored);
}

// A broken row is how one competition's snapshot fails here: SQLite stores JSON as text, so it can
// hold a task whose QnA field does not parse (PostgreSQL's jsonb cannot). The pass is the same code on both.
it.runIf(TEST_ENGINE === 'sqlite')(
  'a competition whose snapshot fails is named, and the competitions after it are still taken',
  async () => {
    await competitionWithARun('a');
    await competitionWithARun('b');
    await t.query("UPDATE tasks SET qna = '{broken' WHERE competition_id = 'a'");
    const failed: string[] = [];
    const taken = await t.app.services.snapshots.takeChanged((competitionId) => failed.push(competitionId));
    expect(failed).toEqual(['a']);
    expect(taken).toBe(1);
    const b = await t.call({ method: 'GET', url: '/v1/competitions/b/snapshots/latest' });
    expect(b.status).toBe(200);
  },
);

const hotkey = (n: number) => encodeSs58(new Uint8Array(32).fill(n));
const J = {
  model: 'judge-a',
  reasoningEffort: 'high',
  votes: 3,
  temperature: 0,
  promptTemplate: 'Question: {question}\nAnswer ({answer_date}): {answer}\nCriterion: {criterion}',
  outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } }, required: ['verdict'] },
};
const TASKS = [
  { id: 'a', type: 'swebench_verified', complexity: 'short' },
  { id: 'b', type: 'swebench_verified', complexity: 'long', stage: 'screener_2' },
];
const run = (runId: string, taskId: string, miner: string | null, resolved: boolean) => ({
  runId,
  taskId,
  resolved,
  tokens: { input: 1000, output: 100 },
  ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
});

describe('the pass after a change takes a snapshot of that competition alone; the pass after it none', () => {
  let validator: { id: string; key: string };
  beforeEach(async () => {
    for (const id of ['c', 'other']) {
      const seeded = await seedCompetition(t, id, { name: id, judgeVotes: 3 });
      if (id === 'c') validator = { id: seeded.validatorId, key: seeded.validatorKey };
      await call('PUT', `${id}/tasks`, { tasks: TASKS });
      await call('POST', `${id}/runs`, {
        runs: [run('r1', 'a', null, true), run('r2', 'a', hotkey(1), true), run('r3', 'b', hotkey(2), false)],
      });
    }
    // The validator's runs: its exclusion changes the input.
    await call(
      'POST',
      'c/runs',
      { runs: [run('v1', 'b', hotkey(1), true)] },
      { authorization: `Bearer ${validator.key}` },
    );
    expect(await pass()).toBe(2);
    await skippingPass();
  });

  const settings = (body: Record<string, Json>) => call('PUT', 'c', { name: 'c', judgeVotes: 3, ...body });
  const miner = (excluded: boolean) => call('PUT', `c/miners/${hotkey(1)}`, { excluded });
  const standing = (excluded: boolean) => call('PUT', `c/validators/${validator.id}`, { excluded });
  const changes: [string, () => Promise<unknown>][] = [
    ['a run posted', () => call('POST', 'c/runs', { runs: [run('r4', 'b', hotkey(2), true)] })],
    ["a new miner's first run", () => call('POST', 'c/runs', { runs: [run('r6', 'a', hotkey(3), false)] })],
    ['a run deleted', () => call('DELETE', 'c/runs/r2')],
    // As many runs, of the same miners, as before: the head is the same, the runs differ.
    [
      'a run deleted and another posted',
      async () => (
        await call('DELETE', 'c/runs/r2'),
        call('POST', 'c/runs', { runs: [run('r5', 'b', hotkey(2), true)] })
      ),
    ],
    ['a task moved to another stage', () => call('PUT', 'c/tasks', { tasks: [{ ...TASKS[0]!, stage: 'screener_1' }] })],
    ['a task retagged', () => call('PUT', 'c/tasks', { tasks: [{ ...TASKS[0]!, complexity: 'medium' }] })],
    ['a task added', () => call('PUT', 'c/tasks', { tasks: [{ id: 'z', type: 'swebench_verified' }] })],
    ['a miner excluded', () => miner(true)],
    ['a miner included again', async () => (await miner(true), expect(await pass()).toBe(1), miner(false))],
    ['a validator excluded', () => standing(true)],
    ['a validator included again', async () => (await standing(true), expect(await pass()).toBe(1), standing(false))],
    ['the token weights', () => settings({ tokenWeights: { input: 2, cachedInput: 0.1, output: 3 } })],
    ['the burn ratio', () => settings({ burnRatio: 0.25 })],
    ['the judge votes', () => settings({ judgeVotes: 5 })],
    ['the final stages', () => settings({ finalStages: ['evaluation'] })],
    ['the name', () => call('PUT', 'c', { name: 'renamed', judgeVotes: 3 })],
    [
      'a metagraph recorded',
      () => call('PUT', 'c/metagraph', { netuid: 7, block: 1, neurons: [{ uid: 0, hotkey: hotkey(9) }] }),
    ],
    ['a judge configuration set', () => call('PUT', 'c/judge', J)],
    // A server upgraded to other scoring rules: its last snapshot was scored under the old ones, and
    // a verifier of the new rules refuses it whole (src/snapshots/verifySnapshot.ts).
    [
      'the rules (the last snapshot scored under older ones)',
      () =>
        t.query(
          `UPDATE snapshots SET document = replace(document, '"rulesVersion":"${RULES_VERSION}"', '"rulesVersion":"swe-scoring-spec/1.0"')
            WHERE competition_id = 'c'`,
        ),
    ],
  ];
  for (const [change, make] of changes)
    it(change, async () => {
      const before = await latestSeq('c');
      await make();
      expect(await pass()).toBe(1);
      expect(await latestSeq('c')).toBeGreaterThan(before);
      expect(await latestSeq('other')).toBe(1);
      await skippingPass();
    });

  // Writes whose input is the one of the last snapshot: no snapshot, as before there was a shortcut.
  // After a deletion the first pass looks at the runs; the next ones skip at once.
  const noChanges: [string, () => Promise<unknown>][] = [
    ['the same tasks sent again', () => call('PUT', 'c/tasks', { tasks: TASKS })],
    ['the same settings sent again', () => settings({})],
    [
      'a run of an excluded validator',
      async () => {
        await standing(true);
        expect(await pass()).toBe(1);
        const auth = { authorization: `Bearer ${validator.key}` };
        await call('POST', 'c/runs', { runs: [run('v2', 'a', hotkey(2), true)] }, auth);
      },
    ],
    [
      'a run deleted and sent again',
      () => call('DELETE', 'c/runs/r2').then(() => call('POST', 'c/runs', { runs: [run('r2', 'a', hotkey(1), true)] })),
    ],
  ];
  for (const [write, make] of noChanges)
    it(`no snapshot after ${write}`, async () => {
      await make();
      const seq = await latestSeq('c');
      expect(await pass()).toBe(0);
      await skippingPass();
      expect(await latestSeq('c')).toBe(seq);
    });
});

it('an unchanged competition is skipped without scoring it or reading its runs', async () => {
  // 20,000 runs: a pass that reads and digests them takes tens of times what one that reads the head alone does.
  await seedCompetition(t, 'big', { name: 'big' });
  const tasks = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' }));
  await call('PUT', 'big/tasks', { tasks });
  for (let b = 0; b < 4; b++) {
    const runs = Array.from({ length: 5000 }, (_, i) => {
      const n = b * 5000 + i;
      return run(`r${n}`, `t${n % 20}`, n % 11 === 0 ? null : hotkey(1 + (n % 10)), n % 3 === 0);
    });
    await call('POST', 'big/runs', { runs });
  }
  const timed = async () => {
    const scored = await scorings();
    const started = performance.now();
    const taken = await pass();
    return { taken, ms: performance.now() - started, scored: (await scorings()) - scored };
  };
  const first = await timed();
  expect(first).toMatchObject({ taken: 1, scored: 1 });
  const skips = [await timed(), await timed(), await timed()];
  for (const s of skips) expect(s).toMatchObject({ taken: 0, scored: 0 });
  // The fastest of three, against the pass that read everything: a shared machine's pauses aside.
  const skip = Math.min(...skips.map((s) => s.ms));
  expect(skip, `skipped in ${skip.toFixed(1)} ms, the full pass took ${first.ms.toFixed(1)} ms`).toBeLessThan(
    first.ms / 10,
  );
  // A run posted: the next pass reads and scores it again.
  await call('POST', 'big/runs', { runs: [run('one-more', 't0', hotkey(1), true)] });
  expect(await timed()).toMatchObject({ taken: 1, scored: 1 });
});
