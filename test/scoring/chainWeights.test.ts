import { describe, expect, it } from 'vitest';
import { chainWeights } from '../../src/scoring/chainWeights.js';

const neurons = (list: [number, string][]) => list.map(([uid, hotkey]) => ({ uid, hotkey }));
const floats = (w: ReturnType<typeof chainWeights>) => Object.fromEntries(w.floats);

describe('chainWeights (SPEC 11)', () => {
  it('a registered miner’s INC goes to its uid; the burn weight to burnUid', () => {
    const w = chainWeights(
      { a: 0.6, b: 0.2 },
      0.2,
      neurons([
        [0, 'owner'],
        [4, 'a'],
        [2, 'b'],
      ]),
      0,
    );
    expect(floats(w)).toEqual({ 0: 0.2, 2: 0.2, 4: 0.6 });
    expect(w.uids).toEqual([0, 2, 4]);
    expect(w.weights).toEqual([21845, 21845, 65535]);
    expect(w.unregistered).toEqual([]);
  });

  it('a burn uid that is also a miner’s: the burn is added to what the miner earned', () => {
    const w = chainWeights(
      { a: 0.3, b: 0.5 },
      0.2,
      neurons([
        [0, 'a'],
        [1, 'b'],
      ]),
      0,
    );
    expect(floats(w)).toEqual({ 0: 0.5, 1: 0.5 });
    expect(w.weights).toEqual([65535, 65535]);
  });

  it('an unregistered winner is listed with its weight, which is burned: nobody else gains', () => {
    const w = chainWeights(
      { a: 0.8, b: 0.2 },
      0,
      neurons([
        [0, 'owner'],
        [2, 'b'],
      ]),
      0,
    );
    expect(w.unregistered).toEqual([{ hotkey: 'a', weight: 0.8 }]);
    expect(floats(w)).toEqual({ 0: 0.8, 2: 0.2 });
    expect(w.weights).toEqual([65535, 16384]);
  });

  it('burned weight goes to burnUid even when no neuron is registered there', () => {
    const w = chainWeights({ a: 0.5 }, 0.5, neurons([[3, 'a']]), 7);
    expect(w.uids).toEqual([3, 7]);
  });

  it('a uid whose miner earned nothing, and a burn of 0, receive nothing and are left out', () => {
    const w = chainWeights(
      { a: 1, b: 0 },
      0,
      neurons([
        [1, 'a'],
        [2, 'b'],
      ]),
      0,
    );
    expect(floats(w)).toEqual({ 1: 1 });
    expect(w.uids).toEqual([1]);
  });

  it('nobody won: everything is burned, to burnUid alone', () => {
    const w = chainWeights({ a: 0 }, 1, neurons([[1, 'a']]), 0);
    expect(w).toMatchObject({ uids: [0], weights: [65535] });
  });

  it('an unregistered miner that earned 0 is still listed, with weight 0', () => {
    expect(chainWeights({ z: 0 }, 1, [], 0).unregistered).toEqual([{ hotkey: 'z', weight: 0 }]);
  });

  it('a hotkey such as __proto__ is an ordinary miner', () => {
    const w = chainWeights(Object.fromEntries([['__proto__', 1]]), 0, neurons([[5, '__proto__']]), 0);
    expect(w.uids).toEqual([5]);
  });
});
