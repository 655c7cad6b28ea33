// SPEC 11 edges through the real app (the chain vector, burnUid, awaitingRuns), each figure computed by
// hand from the rule it checks. SPEC 3-6: ./specEdges.test.ts.
import { describe, expect, it } from 'vitest';
import { admin, seedCompetition } from '../support/app.js';
import { specEdgesApp, hk } from './specEdgesKit.js';

const { app, putTasks, post, get, exclude } = specEdgesApp();

describe('SPEC 11 edges', () => {
  const putMg = async (payload: object) => {
    const res = await app().call({ method: 'PUT', url: '/v1/competitions/c/metagraph', headers: admin, payload });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('an exact half rounds to even (530.5 to 530, where Math.round gives 531)', async () => {
    const b = 0.9919700902891827;
    await seedCompetition(app(), 'c', { name: 'Edges', burnRatio: b });
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    await post([
      ['a', null, true],
      ['a', hk(1), true],
    ]);
    await putMg({ netuid: 1, block: 1, neurons: [{ uid: 1, hotkey: hk(1) }], burnUid: 0 });
    // One winner: INC = 1 · (1 − b); burn = 1 − INC, the largest; the miner's u16 is INC/burn · 65535.
    const inc = 1 * (1 - b);
    const burn = 1 - inc;
    expect((inc / burn) * 65535).toBe(530.5);
    const chain = await get('/weights/chain');
    expect(chain).toMatchObject({ uids: [0, 1], weights: [65535, 530], floats: { 0: burn, 1: inc } });
  });

  it('a miner registered at burnUid keeps its INC there, an unregistered one burns its INC there too', async () => {
    await seedCompetition(app(), 'c', { name: 'Edges', burnRatio: 0.5 });
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    // Three tied winners: each INC = 1/3 · 0.5; burn = 1 − 3 · (1/6).
    await post([
      ['a', null, true],
      ['a', hk(1), true],
      ['a', hk(2), true],
      ['a', hk(3), true],
    ]);
    await putMg({
      netuid: 1,
      block: 1,
      neurons: [
        { uid: 5, hotkey: hk(1) },
        { uid: 9, hotkey: hk(2) },
        { uid: 70, hotkey: hk(9), validator: true },
      ],
      burnUid: 5,
    });
    const w = await get('/weights');
    const inc = (1 / 3) * 0.5;
    expect(w.finalWeights).toEqual({ [hk(1)]: inc, [hk(2)]: inc, [hk(3)]: inc });
    const chain = await get('/weights/chain');
    expect(chain.unregistered).toEqual([{ hotkey: hk(3), weight: inc }]);
    // uid 5: its miner's INC, then the burn weight and the unregistered INC added (SPEC 11).
    expect(chain.floats).toEqual({ 5: inc + w.burnWeight + inc, 9: inc });
    const max = inc + w.burnWeight + inc;
    expect(chain.uids).toEqual([5, 9]);
    expect(chain.weights).toEqual([65535, Math.round((inc / max) * 65535)]);
    expect(chain.awaitingRuns).toEqual([]);
  });
});

describe('awaitingRuns (API 1.2, weights on chain)', () => {
  const putMg = async (neurons: object[], extra: object = {}) => {
    const res = await app().call({
      method: 'PUT',
      url: '/v1/competitions/c/metagraph',
      headers: admin,
      payload: { netuid: 1, block: 1, neurons, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  it('leaves out an excluded registered miner, as coverage does', async () => {
    await putTasks([{ id: 'a', type: 'swebench_verified' }]);
    await putMg([
      { uid: 1, hotkey: hk(1) },
      { uid: 2, hotkey: hk(2) },
    ]);
    await exclude(hk(1));
    expect((await get('/coverage')).pairs.map((p: { miner: string }) => p.miner)).toEqual(['baseline', hk(2)]);
    expect((await get('/weights/chain')).awaitingRuns).toEqual([{ uid: 2, hotkey: hk(2) }]);
  });
});
