// Score reads: response shapes match the documented schemas (cached bodies skip the serializer),
// and every write to a competition is visible to the next read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { LeaderboardSchema, MinerDetailSchema, TaskDetailSchema, WeightsSchema } from '../../src/schemas/scores.js';

let t: TestApp;
const post = (runs: object[]) =>
  t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
const leaderboard = async (q = '') => (await t.call({ method: 'GET', url: `/v1/competitions/c/leaderboard${q}` })).body;
const run = (runId: string, taskId: string, hotkey: string | null, resolved: boolean, output = 100) => ({
  runId,
  taskId,
  resolved,
  tokens: { input: 1000, output },
  ...(hotkey ? { kind: 'miner', minerHotkey: hotkey } : { kind: 'baseline' }),
});

beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  const tasks = [
    { id: 'a', type: 'swebench_verified', complexity: 'short' },
    { id: 'b', type: 'swebench_verified', complexity: 'LONG ', stage: 'screener_2' },
    { id: 'q', type: 'swebench_verified', stage: 'screener_1' },
  ];
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  const runs = [];
  for (const task of ['a', 'b', 'q']) {
    for (let i = 0; i < 5; i++) runs.push(run(`${task}-b${i}`, task, null, i < 3));
    for (let i = 0; i < 5; i++) runs.push(run(`${task}-m1-${i}`, task, 'm1', i < 4, 50));
    for (let i = 0; i < 5; i++) runs.push(run(`${task}-m2-${i}`, task, 'm2', i < 2, 200));
  }
  expect((await post(runs)).body).toEqual({ accepted: 45, duplicates: 0 });
});
afterEach(async () => t.close());

describe('score reads', () => {
  it('leaderboard, weights, miner and task bodies match their schemas', async () => {
    const lb = LeaderboardSchema.parse(await leaderboard());
    expect(lb.miners.map((m) => m.hotkey)).toEqual(['m1', 'm2']);
    WeightsSchema.parse((await t.call({ method: 'GET', url: '/v1/competitions/c/weights' })).body);
    const miner = MinerDetailSchema.parse((await t.call({ method: 'GET', url: '/v1/competitions/c/miners/m1' })).body);
    expect(miner.tasks.map((x) => x.taskId)).toEqual(['a', 'b']);
    const task = TaskDetailSchema.parse((await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/b' })).body);
    expect(task.complexity).toBe('long');
  });

  it('stage selection: screener_1 alone scores only its task', async () => {
    const lb = await leaderboard('?stages=screener_1');
    expect(lb.stages).toEqual(['screener_1']);
    expect(lb.miners[0].taskCounts).toEqual({ main: 1, hardBoost: 0, excluded: 0 });
    const bad = await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard?stages=final' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('unknown stage final');
  });

  it('a new run is visible to the next read', async () => {
    const before = await leaderboard();
    expect(before.miners.find((m: { hotkey: string }) => m.hotkey === 'm2').runs).toBe(10);
    await post([run('extra', 'a', 'm2', true, 200)]);
    const after = await leaderboard();
    expect(after.miners.find((m: { hotkey: string }) => m.hotkey === 'm2').runs).toBe(11);
  });

  it('deleting a run is visible to the next read', async () => {
    await leaderboard();
    expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/a-m1-0', headers: admin })).status).toBe(
      200,
    );
    const after = await leaderboard();
    expect(after.miners.find((m: { hotkey: string }) => m.hotkey === 'm1').runs).toBe(9);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs/a-m1-0' })).status).toBe(404);
  });

  it('excluding a miner is visible to the next read', async () => {
    expect((await leaderboard()).miners[0].rank).toBe(1);
    await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/miners/m1',
      headers: admin,
      payload: { excluded: true, reason: 'copying' },
    });
    const after = await leaderboard();
    const m1 = after.miners.find((m: { hotkey: string }) => m.hotkey === 'm1');
    expect(m1).toMatchObject({
      excluded: true,
      rank: null,
      normalizedScore: null,
      incentive: { rawWeight: 0, finalWeight: 0 },
    });
    expect(after.miners.find((m: { hotkey: string }) => m.hotkey === 'm2').rank).toBe(1);
  });

  it('moving a task to another stage, and changing the burn ratio, are visible to the next read', async () => {
    expect((await leaderboard()).miners[0].taskCounts.main).toBe(2);
    await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/tasks',
      headers: admin,
      payload: { tasks: [{ id: 'b', type: 'swebench_verified', stage: 'screener_1' }] },
    });
    expect((await leaderboard()).miners[0].taskCounts.main).toBe(1);
    await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c', burnRatio: 0.5 } });
    const w = (await t.call({ method: 'GET', url: '/v1/competitions/c/weights' })).body;
    expect(w.burnRatio).toBe(0.5);
    expect(w.burnWeight).toBeCloseTo(0.5, 12);
  });
});
