// Token sums are kept exact: a batch that would take a (task, miner) or baseline sum past
// 2^53 - 1, where it could no longer be read back exactly, is refused whole and stores nothing.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let v: { authorization: string };
beforeEach(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t);
  v = { authorization: `Bearer ${validatorKey}` };
  const tasks = [{ id: 'T1', type: 'swebench_verified', complexity: 'short' }];
  await t.call({ method: 'PUT', url: '/v1/competitions/comp/tasks', headers: admin, payload: { tasks } });
});
afterEach(async () => t.close());

const MAX = Number.MAX_SAFE_INTEGER;
const run = (runId: string, kind: 'miner' | 'baseline', input: number) => ({
  runId,
  taskId: 'T1',
  kind,
  ...(kind === 'miner' ? { minerHotkey: 'hk' } : {}),
  resolved: true,
  tokens: { input, output: 10 },
});
const post = (runs: unknown[]) =>
  t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: v, payload: { runs } });

it.each(['miner', 'baseline'] as const)(
  'refuses a %s batch that would pass 2^53 - 1, storing nothing',
  async (kind) => {
    expect((await post([run('a', kind, MAX - 5)])).status).toBe(200);
    const before = (await t.call({ method: 'GET', url: '/v1/competitions/comp/tasks/T1', headers: admin })).body;

    const refused = await post([run('ok', kind, 5), run('b', kind, 1)]);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('2^53 - 1');
    expect((await t.call({ method: 'GET', url: '/v1/competitions/comp/runs/ok', headers: admin })).status).toBe(404);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/comp/tasks/T1', headers: admin })).body).toEqual(
      before,
    );

    // Up to the limit itself the sum is exact and accepted.
    expect((await post([run('c', kind, 5)])).status).toBe(200);
  },
);
