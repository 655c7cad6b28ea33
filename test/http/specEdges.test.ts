// SPEC edges through the real app, each figure computed by hand from the rule it checks.
import { describe, expect, it } from 'vitest';
import { admin, seedCompetition } from '../support/app.js';
import { specEdgesApp, hk } from './specEdgesKit.js';

const { app, putTasks, post, get, exclude } = specEdgesApp();
type Entry = { hotkey: string; rank: number | null; normalizedScore: number | null; [k: string]: unknown };
const board = async (q = ''): Promise<Entry[]> => (await get(`/leaderboard${q}`)).miners;
const entry = async (hotkey: string, q = '') => (await board(q)).find((m) => m.hotkey === hotkey);

describe('SPEC 3-5 edges', () => {
  it('a task whose only baseline run failed is hard (x = 0); deleting that run leaves it unscored', async () => {
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    const [base] = await post([
      ['a', null, false],
      ['a', 'm1', true],
      ['a', 'm2', false],
    ]);
    // x = 0, y = 1, n = max(0, 1, 1, 1) = 1: bonus clamp(0 + 1/1) = 1, h = 1, B_H = 1/1, S_N = 3/7.
    const m1 = await entry('m1');
    expect(m1).toMatchObject({ rank: 1, hardBoost: 1, mainScore: 0, rawTotal: 1 });
    expect(m1!.normalizedScore).toBeCloseTo(3 / 7, 15);
    // y = 0 on a hard task: excluded, nothing scored, no score and no rank.
    expect(await entry('m2')).toMatchObject({
      rank: null,
      normalizedScore: null,
      taskCounts: { main: 0, hardBoost: 0, excluded: 1 },
    });
    const del = await app().call({ method: 'DELETE', url: `/v1/competitions/c/runs/${base}`, headers: admin });
    expect(del.status).toBe(200);
    expect(await entry('m1')).toMatchObject({
      rank: null,
      normalizedScore: null,
      taskCounts: { main: 0, hardBoost: 0, excluded: 1 },
    });
    const w = await get('/weights');
    expect(w.finalWeights).toEqual({});
    expect(w.burnWeight).toBe(1);
  });

  it('plannedRuns changed after runs exist changes n at the next read', async () => {
    await putTasks([{ id: 'a', type: 'swebench_verified', plannedRuns: 10 }]);
    await post([
      ['a', null, false],
      ['a', 'm1', true],
    ]);
    // x = 0, y = 1, n = 10: s = 1/10.
    expect((await get('/miners/m1')).tasks[0]).toMatchObject({ x: 0, y: 1, n: 10, zone: 'bonus', score: 0.1 });
    await putTasks([{ id: 'a', type: 'swebench_verified', plannedRuns: 4 }]);
    expect((await get('/miners/m1')).tasks[0]).toMatchObject({ n: 4, score: 0.25 });
  });

  it('penalty at y = 0 with t = 1, and the main weight x^(1/3)', async () => {
    await putTasks([
      { id: 'a', type: 'swebench_verified' },
      { id: 'b', type: 'swebench_verified' },
    ]);
    // a: x = 2 (t = 1), m1 y = 0: penalty -2 - 2(1 - 0) = -4. b: x = 2, y = 2, equal tokens: r = 0.
    await post([
      ['a', null, true],
      ['a', null, true],
      ['a', 'm1', false],
      ['b', null, true],
      ['b', null, true],
      ['b', 'm1', true],
      ['b', 'm1', true],
    ]);
    const m1 = await get('/miners/m1');
    expect(m1.tasks.map((x: { zone: string; score: number }) => [x.zone, x.score])).toEqual([
      ['penalty', -4],
      ['maintain', 0],
    ]);
    // S_M = (-4 + 0)/2 = -2, S_N = (2·-2 + 1)/7 = -3/7.
    expect(m1.mainScore).toBe(-2);
    expect(m1.normalizedScore).toBeCloseTo(-3 / 7, 15);
  });

  it('equal scores share a rank (1, 1, 3) and split the element equally', async () => {
    await seedCompetition(app(), 'c', { name: 'Edges', burnRatio: 0.2 });
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    await post([
      ['a', null, true],
      ['a', null, true],
      ['a', 'b1', true],
      ['a', 'b1', true],
      ['a', 'a1', true],
      ['a', 'a1', true],
      ['a', 'c1', true],
      ['a', 'c1', true, 400],
    ]);
    const lb = await board();
    expect(lb.map((m) => [m.hotkey, m.rank])).toEqual([
      ['a1', 1],
      ['b1', 1],
      ['c1', 3],
    ]);
    const w = await get('/weights');
    expect(w.layers[0].elements).toEqual([{ subset: ['overall'], winners: ['a1', 'b1'], winningScore: 1 / 7 }]);
    expect(w.finalWeights).toEqual({ a1: 0.4, b1: 0.4, c1: 0 });
    expect(w.burnWeight).toBeCloseTo(0.2, 15);
  });

  it('scores apart by rounding alone (5.6e-17) share rank 1 and split the element', async () => {
    await putTasks(['a', 'b', 'c'].map((id) => ({ id, type: 'swebench_verified' })));
    const tokens = (runId: string, taskId: string, hotkey: string | null, input: number) => ({
      runId,
      taskId,
      resolved: true,
      tokens: { input, output: 0 },
      ...(hotkey ? { kind: 'miner', minerHotkey: hotkey } : { kind: 'baseline' }),
    });
    // x = 2 everywhere (t = 1), one resolved run each: maintain, s = r = log2(1000/T_A). m1's r on
    // a, b, c are m2's on c, b, a: the same three numbers summed in another order.
    const runs = [];
    for (const task of ['a', 'b', 'c'])
      runs.push(tokens(`${task}b1`, task, null, 1000), tokens(`${task}b2`, task, null, 1000));
    const m1 = { a: 300, b: 500, c: 1700 } as const;
    const m2 = { a: 1700, b: 500, c: 300 } as const;
    for (const task of ['a', 'b', 'c'] as const)
      runs.push(tokens(`${task}m1`, task, 'm1', m1[task]), tokens(`${task}m2`, task, 'm2', m2[task]));
    expect(
      (await app().call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } })).status,
    ).toBe(200);
    const r = (a: number) => Math.log2(1000 / a);
    const w = Math.cbrt(2);
    const sn = (x: number, y: number, z: number) => (2 * ((x * w + y * w + z * w) / (w + w + w)) + 1) / 7;
    // The same numbers, not the same bits: the tie rule (1e-12) is what makes them equal.
    expect(sn(r(300), r(500), r(1700))).not.toBe(sn(r(1700), r(500), r(300)));
    const lb = await board();
    expect(lb.map((m) => [m.hotkey, m.rank])).toEqual([
      ['m1', 1],
      ['m2', 1],
    ]);
    expect(lb.find((m) => m.hotkey === 'm1')!.normalizedScore).toBe(sn(r(300), r(500), r(1700)));
    expect(lb.find((m) => m.hotkey === 'm2')!.normalizedScore).toBe(sn(r(1700), r(500), r(300)));
    const weights = await get('/weights');
    expect(weights.layers[0].elements[0].winners).toEqual(['m1', 'm2']);
    expect(weights.finalWeights).toEqual({ m1: 0.5, m2: 0.5 });
  });

  it('a negative best score still wins', async () => {
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    await post([
      ['a', null, true],
      ['a', null, true],
      ['a', 'm1', false],
      ['a', 'm2', false],
      ['a', 'm2', false],
    ]);
    // Both penalty -4 → S_N = -1: tied, both win.
    const w = await get('/weights');
    expect(w.layers[0].elements[0]).toMatchObject({ winners: ['m1', 'm2'], winningScore: -1 });
    expect(w.finalWeights).toEqual({ m1: 0.5, m2: 0.5 });
  });
});

describe('SPEC 6 edges', () => {
  it('a group whose tasks nobody scored on gets no elements; re-tagging a task moves its group', async () => {
    await putTasks([
      { id: 'a', type: 'swebench_verified', complexity: 'short' },
      { id: 'b', type: 'swebench_verified', complexity: 'long' },
      { id: 'c', type: 'swebench_verified', complexity: 'medium' },
    ]);
    // a: x = 2, both miners maintain. b: x = 0, nobody resolves: excluded for both. c: no baseline.
    await post([
      ['a', null, true],
      ['a', null, true],
      ['a', 'm1', true],
      ['a', 'm1', true],
      ['a', 'm2', true, 400],
      ['b', null, false],
      ['b', 'm1', false],
      ['c', 'm1', true],
    ]);
    let w = await get('/weights');
    expect(w.groups).toEqual(['short']);
    expect(w.layers).toHaveLength(1);
    expect(w.layers[0]).toMatchObject({ subsetSize: 1, layerWeight: 1, elementWeight: 1 });
    expect(w.layers[0].elements[0].winners).toEqual(['m1']);
    // Re-tag a as long: the short group is now empty, long is the only group.
    await putTasks([{ id: 'a', type: 'swebench_verified', complexity: 'long' }]);
    w = await get('/weights');
    expect(w.groups).toEqual(['long']);
    expect((await entry('m1'))!.groupScores).toEqual({ long: expect.any(Number) });
  });

  it('two groups present: layer weights 0.45/0.75 and 0.30/0.75', async () => {
    await putTasks([
      { id: 'a', type: 'swebench_verified', complexity: 'short' },
      { id: 'b', type: 'swebench_verified', complexity: 'long' },
    ]);
    // m1 wins short, m2 wins long, the pair: m1 mean higher.
    await post([
      ['a', null, true],
      ['a', null, true],
      ['b', null, true],
      ['b', null, true],
      ['a', 'm1', true],
      ['a', 'm1', true],
      ['a', 'm2', true],
      ['a', 'm2', true, 400],
      ['b', 'm1', true],
      ['b', 'm1', true, 200],
      ['b', 'm2', true],
      ['b', 'm2', true],
    ]);
    const w = await get('/weights');
    expect(w.groups).toEqual(['short', 'long']);
    expect(
      w.layers.map((l: { layerWeight: number; elementWeight: number }) => [l.layerWeight, l.elementWeight]),
    ).toEqual([
      [0.45 / 0.75, 0.45 / 0.75],
      [0.3 / 0.75, 0.3 / 0.75 / 2],
    ]);
  });

  it('all miners excluded: nobody wins, the burn weight is 1, the chain vector is burnUid alone', async () => {
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    await post([
      ['a', null, true],
      ['a', 'm1', true],
    ]);
    await exclude('m1');
    const w = await get('/weights');
    expect(w.finalWeights).toEqual({});
    expect(w.burnWeight).toBe(1);
    expect(w.layers[0].elements[0]).toEqual({ subset: ['overall'], winners: [], winningScore: null });
    const mg = await app().call({
      method: 'PUT',
      url: '/v1/competitions/c/metagraph',
      headers: admin,
      payload: { netuid: 1, block: 1, neurons: [{ uid: 3, hotkey: hk(3) }], burnUid: 7 },
    });
    expect(mg.status).toBe(200);
    const chain = await get('/weights/chain');
    expect(chain).toMatchObject({ uids: [7], weights: [65535], floats: { 7: 1 }, unregistered: [] });
  });
});
