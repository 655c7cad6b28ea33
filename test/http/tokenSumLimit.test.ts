// Token sums are kept exact: a batch that would take a (task, miner) or baseline sum past
// 2^53 - 1, where it could no longer be read back exactly, is refused whole and stores nothing.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let v: { authorization: string };
let validatorId: string;
beforeEach(async () => {
  t = await testApp();
  const seeded = await seedCompetition(t);
  v = { authorization: `Bearer ${seeded.validatorKey}` };
  validatorId = seeded.validatorId;
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
const post = (runs: unknown[], headers = v) =>
  t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers, payload: { runs } });
const read = async (url: string) => (await t.call({ method: 'GET', url, headers: admin })).body;
/** Sets the seeded validator's standing in the competition. */
const standing = (excluded: boolean) =>
  t.call({
    method: 'PUT',
    url: `/v1/competitions/comp/validators/${validatorId}`,
    headers: admin,
    payload: { excluded },
  });
/** Everything a refused change must leave as it was. */
const state = async () => ({
  competition: await read('/v1/competitions/comp'),
  validators: await read('/v1/competitions/comp/validators'),
  miner: await read('/v1/competitions/comp/miners/hk'),
  task: await read('/v1/competitions/comp/tasks/T1'),
  audit: await read('/v1/audit'),
});

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

it.each(['miner', 'baseline'] as const)(
  "refuses a %s batch whose own runs take a new pair's sum past 2^53 - 1, storing nothing",
  async (kind) => {
    const before = await read('/v1/competitions/comp/tasks/T1');
    const refused = await post([run('a', kind, MAX - 5), run('b', kind, 10)]);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('2^53 - 1');
    expect(await read('/v1/competitions/comp/tasks/T1')).toEqual(before);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/comp/runs/a', headers: admin })).status).toBe(404);
  },
);

it('refuses to include a validator again when its runs would take a sum past 2^53 - 1, changing nothing', async () => {
  // The batches checked the sums without the excluded validator's runs; counting them again must not
  // store a sum that can no longer be read back exactly.
  const other = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'other' } });
  expect((await post([run('big', 'miner', MAX)])).status).toBe(200);
  expect((await standing(true)).status).toBeLessThan(300);
  expect((await post([run('small', 'miner', 1000)], { authorization: `Bearer ${other.body.apiKey}` })).status).toBe(
    200,
  );
  const before = await state();

  const refused = await standing(false);
  expect(refused.status).toBe(422);
  expect(refused.body.detail).toContain('miner hk on task T1');
  expect(refused.body.detail).toContain('2^53 - 1');
  expect(await state()).toEqual(before);
});

it('refuses new token weights that would let runs take a sum past 2^53 - 1, changing nothing', async () => {
  // Under these weights no run's tokens enter the sums (SPEC 2: a weighted total of 0 is not valid).
  const zero = { input: 0, cachedInput: 0, output: 0 };
  expect(
    (
      await t.call({
        method: 'PUT',
        url: '/v1/competitions/comp',
        headers: admin,
        payload: { name: 'Test', tokenWeights: zero },
      })
    ).status,
  ).toBe(200);
  expect((await post([run('a', 'baseline', MAX - 5), run('b', 'baseline', MAX - 5)])).status).toBe(200);
  const before = await state();

  const refused = await t.call({
    method: 'PUT',
    url: '/v1/competitions/comp',
    headers: admin,
    payload: { name: 'Test', tokenWeights: { input: 1, cachedInput: 0.1, output: 1 } },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.detail).toContain('the baseline on task T1');
  expect(await state()).toEqual(before);
});

it('refuses to include a validator again whose runs would take a sum past 2^63, on both engines alike', async () => {
  // An excluded validator's runs are stored without entering the sums; 1,025 runs of 2^53 - 1
  // tokens sum past what a 64-bit integer holds.
  expect((await standing(true)).status).toBeLessThan(300);
  const runs = Array.from({ length: 1025 }, (_, i) => ({ ...run(`r${i}`, 'miner', MAX), attemptNo: i + 1 }));
  expect((await post(runs)).status).toBe(200);
  const refused = await standing(false);
  expect(refused.status).toBe(422);
  expect(refused.body.detail).toContain('miner hk on task T1');
});

it('a refused batch takes no run sequence numbers: the next run is numbered as if it was never sent', async () => {
  // PostgreSQL's sequences do not roll back; the refusal must come before the numbers are taken.
  const seq = async (runId: string) => (await read(`/v1/competitions/comp/runs/${runId}`)).seq as number;
  expect((await post([run('a', 'miner', MAX - 5)])).status).toBe(200);
  const first = await seq('a');
  expect((await post([run('x', 'miner', 1), run('y', 'miner', 1), run('z', 'miner', 5)])).status).toBe(422);
  expect((await post([run('next', 'miner', 5)])).status).toBe(200);
  expect(await seq('next')).toBe(first + 1);
});
