// A write that reaches a restored competition before the start's pass does. Found on PostgreSQL by
// test/reliability/restartsAgree.test.ts (seed 22): the pass queued the competition's background
// fill, to begin once the pass was done, then had to compute its scores, which waited for that fill:
// the pass never ended, every read of the competition needing its input (all of them once a write
// dropped its scores) waited forever, and so did the shutdown's save. The pass is held here where it
// reads the first competition's saved row, so the write comes between, on either engine.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('warm-start-write');
afterAll(() => dir.remove());

const TASKS = ['T1', 'T2', 'T3'].map((id, i) => ({
  id,
  type: 'swebench_verified',
  complexity: ['short', 'long'][i % 2],
}));
const runs = (prefix: string, hotkeys: string[]) =>
  TASKS.flatMap((task, t) => [
    {
      runId: `${prefix}-b-${task.id}`,
      taskId: task.id,
      kind: 'baseline',
      resolved: t !== 1,
      tokens: { input: 900, output: 90 },
    },
    ...hotkeys.map((hotkey, h) => ({
      runId: `${prefix}-${hotkey}-${task.id}`,
      taskId: task.id,
      kind: 'miner',
      minerHotkey: hotkey,
      resolved: (t + h) % 2 === 0,
      tokens: { input: 700 + 100 * h, output: 70 + t },
    })),
  ]);

async function post(t: TestApp, id: string, body: unknown, method = 'POST', url = `/v1/competitions/${id}/runs`) {
  const res = await t.call({ method, url, headers: admin, payload: body as object });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

/** Settles with `p`, or rejects after `ms`: a hang is a failure, not a stuck suite. */
const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);

it('computes a restored competition a write reached before the pass, and the pass ends', async () => {
  const path = join(dir.dir, 'warm.db');
  const first = await testApp({ path });
  // alpha first, beta the newest: beta is restored before the app is returned, alpha by the pass.
  for (const id of ['alpha', 'beta']) {
    await seedCompetition(first, id);
    await post(first, id, { tasks: TASKS }, 'PUT', `/v1/competitions/${id}/tasks`);
    await post(first, id, { runs: runs('a', ['m1', 'm2']) });
  }
  await first.close(); // saves both competitions' scores

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const again = await testApp({
    path,
    wrapStore: (store) => {
      const saved = store.capabilities.savedScores!;
      const load = async (code: string, competitionId: string) => {
        if (competitionId === 'alpha') await held;
        return saved.load(code, competitionId);
      };
      return { ...store, capabilities: { ...store.capabilities, savedScores: { ...saved, load } } };
    },
  });
  try {
    // The pass waits on alpha's saved row; beta, restored, takes a write meanwhile.
    await post(again, 'beta', { runs: runs('b', ['m3']) });
    release();
    await within(again.app.services.scores.warmed(), 5000, "the start's pass");
    const board = await within(again.call({ method: 'GET', url: '/v1/competitions/beta/leaderboard' }), 5000, 'beta');
    const coverage = await within(
      again.call({ method: 'GET', url: '/v1/competitions/beta/coverage' }),
      5000,
      'coverage',
    );
    // The same as a recompute over the same file with nothing restored.
    const fresh = await testApp({ path: join(dir.dir, 'warm.db') });
    try {
      expect(board.body).toEqual((await fresh.call({ method: 'GET', url: '/v1/competitions/beta/leaderboard' })).body);
      expect(coverage.body).toEqual((await fresh.call({ method: 'GET', url: '/v1/competitions/beta/coverage' })).body);
    } finally {
      await fresh.close();
    }
    expect((board.body as { miners: { hotkey: string }[] }).miners.map((m) => m.hotkey)).toContain('m3');
  } finally {
    await within(again.close(), 5000, 'the close (its save waits for the pass)');
  }
});
