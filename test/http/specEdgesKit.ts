// The setup the SPEC edge suites share (./specEdges.test.ts, ./specEdgesChain.test.ts): a fresh app
// for each test, holding competition `c`, and the calls the suites make to it as the admin.
import { afterEach, beforeEach, expect } from 'vitest';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

export const hk = (n: number) => encodeSs58(new Uint8Array(32).fill(n));

/** A run: its task, its miner (null: a baseline run), whether it resolved, and its output tokens (100 unless given). */
export type R = [task: string, miner: string | null, resolved: boolean, output?: number];

/** Registers the app of each test of the calling file; `app()` is the current test's. */
export function specEdgesApp() {
  let t: TestApp;
  let nextRun = 0;
  beforeEach(async () => {
    t = await testApp();
    await seedCompetition(t, 'c', { name: 'Edges' });
  });
  afterEach(async () => t.close());

  const putTasks = async (tasks: object[]) => {
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } });
    expect(res.status).toBe(200);
  };
  /** Posts the runs as one batch; their run ids. */
  const post = async (list: R[]) => {
    const runs = list.map(([taskId, miner, resolved, output = 100]) => ({
      runId: `r${nextRun++}`,
      taskId,
      resolved,
      tokens: { input: 1000, output },
      ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
    }));
    const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
    expect(res.status).toBe(200);
    return runs.map((r) => r.runId);
  };
  /** The body of a read of competition `c` (`path` after its URL). */
  const get = async (path: string) => {
    const res = await t.call({ method: 'GET', url: `/v1/competitions/c${path}` });
    return res.body;
  };
  const exclude = async (hotkey: string, excluded = true) =>
    expect(
      (
        await t.call({
          method: 'PUT',
          url: `/v1/competitions/c/miners/${hotkey}`,
          headers: admin,
          payload: { excluded },
        })
      ).status,
    ).toBeOneOf([200, 201]);
  return { app: () => t, putTasks, post, get, exclude };
}
