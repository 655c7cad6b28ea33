// The scoring input kept in memory between score reads (src/db/scoringInput.ts) must equal a
// fresh read of the database after any sequence of writes: runs sent and deleted (a miner's first
// run among them), rejected batches, token weights changed, miners excluded, tasks added or changed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { prng } from '../support/prng.js';

let t: TestApp;
let v: { authorization: string };

beforeEach(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t);
  v = { authorization: `Bearer ${validatorKey}` };
  const tasks = ['T1', 'T2', 'T3'].map((id) => ({ id, type: 'swebench_verified', complexity: 'short' }));
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/comp/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
});

afterEach(async () => t.close());

const sorted = <T extends { taskId: string; hotkey: string }>(list: Iterable<T>, xs = [...list]) =>
  [...xs].sort((a, b) => (a.taskId + a.hotkey < b.taskId + b.hotkey ? -1 : 1));

/** Miners: each new one comes with its first run (or its exclusion), and may lose every run again. */
const HOTKEYS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];

it('equals a fresh read after every write', async () => {
  const pick = prng(7).below;
  const stored: string[] = [];
  let weights = { input: 1, cachedInput: 0.1, output: 3 };
  for (let step = 0; step < 120; step++) {
    const op = pick(11);
    if (op < 5) {
      const runs = Array.from({ length: 1 + pick(4) }, (_, i) => {
        const baseline = pick(4) === 0;
        return {
          runId: `r${step}-${i}`,
          taskId: `T${1 + pick(4)}`,
          kind: baseline ? 'baseline' : 'miner',
          ...(baseline ? {} : { minerHotkey: HOTKEYS[pick(HOTKEYS.length)] }),
          resolved: pick(2) === 0,
          tokens: { input: pick(1000), cachedInput: pick(500), output: pick(100) },
        };
      });
      // Now and then a batch with an unknown task: rejected whole, nothing changes.
      if (pick(5) === 0) runs.push({ ...runs[0]!, runId: `bad${step}`, taskId: 'nope' });
      const res = await t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: v, payload: { runs } });
      if (res.status === 200) stored.push(...runs.map((r) => r.runId));
    } else if (op < 7 && stored.length > 0) {
      const [id] = stored.splice(pick(stored.length), 1);
      expect((await t.call({ method: 'DELETE', url: `/v1/competitions/comp/runs/${id}`, headers: admin })).status).toBe(
        200,
      );
    } else if (op === 7) {
      weights = { input: 1 + pick(3), cachedInput: pick(2) / 10, output: 1 + pick(4) };
      const res = await t.call({
        method: 'PUT',
        url: '/v1/competitions/comp',
        headers: admin,
        payload: { name: 'Test', tokenWeights: weights },
      });
      expect(res.status).toBe(200);
    } else if (op === 10) {
      // A task added (T4: until then its runs are rejected) or one changed.
      const task = { id: `T${2 + pick(3)}`, type: 'swebench_verified', complexity: ['short', 'long'][pick(2)] };
      const res = await t.call({
        method: 'PUT',
        url: '/v1/competitions/comp/tasks',
        headers: admin,
        payload: { tasks: [task] },
      });
      expect(res.status).toBe(200);
    } else {
      const hotkey = HOTKEYS[pick(HOTKEYS.length)];
      await t.call({
        method: 'PUT',
        url: `/v1/competitions/comp/miners/${hotkey}`,
        headers: admin,
        payload: { excluded: pick(2) === 0 },
      });
    }
    // A score read through the server (which uses and updates the in-memory copy)...
    expect((await t.call({ method: 'GET', url: '/v1/competitions/comp/leaderboard' })).status).toBe(200);
    const kept = await t.store.scoringInput.load('comp', weights);
    // ...must match what a fresh reader sees in the database.
    const reader = await t.freshStore();
    const fresh = await reader.scoringInput.load('comp', weights);
    await reader.close();
    expect(sorted(kept.minerTasks)).toEqual(sorted(fresh.minerTasks));
    expect(kept.tasks).toEqual(fresh.tasks);
    expect(kept.miners).toEqual(fresh.miners);
  }
});

it('inside a transaction, shows its own writes and keeps none of them once it rolls back', async () => {
  const runs = ['alice', 'bob'].flatMap((hotkey, h) =>
    ['T1', 'T2'].map((taskId, i) => ({
      runId: `r${h}${i}`,
      taskId,
      kind: 'miner',
      minerHotkey: hotkey,
      resolved: true,
      tokens: { input: 10, cachedInput: 0, output: 1 },
    })),
  );
  const W = { input: 1, cachedInput: 0.1, output: 3 };
  expect(
    (await t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: v, payload: { runs } })).status,
  ).toBe(200);
  // A score read builds the in-memory copy; a later write leaves a pair to read again.
  expect((await t.call({ method: 'GET', url: '/v1/competitions/comp/leaderboard' })).status).toBe(200);
  const more = { ...runs[0]!, runId: 'r-late', resolved: false };
  expect(
    (await t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: v, payload: { runs: [more] } })).status,
  ).toBe(200);

  const counts = (list: Iterable<{ taskId: string; hotkey: string; runs: number; resolved: number }>, xs = [...list]) =>
    sorted(xs).map((e) => `${e.taskId}/${e.hotkey}:${e.runs}/${e.resolved}`);
  const committed = async () => {
    const reader = await t.freshStore();
    try {
      return counts((await reader.scoringInput.load('comp', W)).minerTasks);
    } finally {
      await reader.close();
    }
  };
  const before = await committed();
  expect(before).toEqual(['T1/alice:2/1', 'T1/bob:1/1', 'T2/alice:1/1', 'T2/bob:1/1']);

  const rolledBack = new Error('roll back');
  await expect(
    t.store.transaction(async (tx) => {
      // Before any write of its own: what is committed.
      expect(counts((await tx.scoringInput.load('comp', W)).minerTasks)).toEqual(before);
      // Its own deletions: one pair loses a run, another is gone.
      for (const id of ['r00', 'r11']) {
        const run = await tx.runs.get('comp', id);
        await tx.runs.delete(run!, W);
      }
      expect(counts((await tx.scoringInput.load('comp', W)).minerTasks)).toEqual([
        'T1/alice:1/0',
        'T1/bob:1/1',
        'T2/alice:1/1',
      ]);
      throw rolledBack;
    }),
  ).rejects.toBe(rolledBack);

  // Rolled back: the copy kept in memory shows the committed pairs, as a fresh reader does.
  expect(counts((await t.store.scoringInput.load('comp', W)).minerTasks)).toEqual(before);
  expect(await committed()).toEqual(before);
});

it('tells the pairs changed since the list it gave before, once (where the store keeps them: SQLite)', async () => {
  const pairChanges = t.store.scoringInput.pairChanges?.bind(t.store.scoringInput);
  if (!pairChanges) return;
  const W = { input: 1, cachedInput: 0.1, output: 3 };
  const run = (runId: string, hotkey: string) => ({
    runId,
    taskId: 'T1',
    kind: 'miner',
    minerHotkey: hotkey,
    resolved: true,
    tokens: { input: 10, cachedInput: 0, output: 1 },
  });
  const post = async (runs: object[]) =>
    expect(
      (await t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: v, payload: { runs } })).status,
    ).toBe(200);
  await post([run('r1', 'alice'), run('r2', 'bob')]);
  const before = (await t.store.scoringInput.load('comp', W)).minerTasks;
  await post([run('r3', 'alice')]);
  const after = (await t.store.scoringInput.load('comp', W)).minerTasks;
  const told = await pairChanges('comp');
  expect(told?.from).toBe(before);
  expect(told?.to).toBe(after);
  expect(told?.added.map((e) => `${e.hotkey}:${e.runs}`)).toEqual(['alice:2']);
  expect(told?.gone.map((e) => `${e.hotkey}:${e.runs}`)).toEqual(['alice:1']);
  expect(await pairChanges('comp')).toBeUndefined();
});
