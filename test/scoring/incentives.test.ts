import { describe, expect, it } from 'vitest';
import { incentives } from '../../src/scoring/incentives.js';
import type { Contestant, GroupScores } from '../../src/scoring/types.js';

const miner = (hotkey: string, groupScores: GroupScores, normalizedScore: number | null = 0): Contestant => ({
  hotkey,
  normalizedScore,
  groupScores,
});
const elements = (w: ReturnType<typeof incentives>) =>
  w.layers.flatMap((l) => l.elements.map((e) => `${e.subset.join('+')}:${e.winners.join(',')}`));

describe('incentives (SPEC 6)', () => {
  it('a miner lacking a group competes only for the elements where it has every score', () => {
    const w = incentives([miner('a', { short: 0.2, medium: 0.5, long: 0.5 }), miner('b', { short: 0.9 })], 0);
    expect(w.groups).toEqual(['short', 'medium', 'long']);
    expect(elements(w)).toEqual([
      'short+medium+long:a',
      'short+medium:a',
      'short+long:a',
      'medium+long:a',
      'short:b',
      'medium:a',
      'long:a',
    ]);
    // a: 0.25 + 3 × 0.15 + 2 × 0.10; b: one single, 0.10.
    expect(w.rawWeights.a).toBeCloseTo(0.9, 12);
    expect(w.rawWeights.b).toBeCloseTo(0.1, 12);
    expect(w.finalWeights.a).toBeCloseTo(0.9, 12);
    expect(w.finalWeights.b).toBeCloseTo(0.1, 12);
  });

  it('the contest score of an element is the plain mean of its group scores', () => {
    const w = incentives([miner('a', { short: 0.9, medium: 0.1 }), miner('b', { short: 0.4, medium: 0.5 })], 0);
    const pair = w.layers[0]?.elements[0];
    expect(pair?.subset).toEqual(['short', 'medium']);
    expect(pair?.winners).toEqual(['a']); // (0.9 + 0.1)/2 = 0.5 beats (0.4 + 0.5)/2 = 0.45
    expect(pair?.winningScore).toBeCloseTo(0.5, 12);
  });

  it('tied winners split an element equally', () => {
    const w = incentives([miner('a', { long: 0.5 }), miner('b', { long: 0.5 }), miner('c', { long: 0.1 })], 0);
    expect(w.layers[0]?.elements[0]?.winners).toEqual(['a', 'b']);
    expect(w.rawWeights).toEqual({ a: 0.5, b: 0.5, c: 0 });
    expect(w.finalWeights).toEqual({ a: 0.5, b: 0.5, c: 0 });
  });

  it('weight of an element nobody competed for is shared out, not burned', () => {
    const w = incentives([miner('a', { short: 0.3 }), miner('b', { long: 0.4 })], 0.1);
    expect(elements(w)).toEqual(['short+long:', 'short:a', 'long:b']);
    expect(w.layers[0]?.elements[0]?.winningScore).toBeNull();
    // W = 0.2 each of 0.4 won; INC = 0.2 / 0.4 × (1 − 0.1).
    expect(w.finalWeights.a).toBeCloseTo(0.45, 12);
    expect(w.finalWeights.b).toBeCloseTo(0.45, 12);
    expect(w.burnWeight).toBeCloseTo(0.1, 12);
  });

  it('final weights are W/ΣW·(1 − burnRatio) and the burn weight is the rest', () => {
    const w = incentives([miner('a', { short: 0.9 }), miner('b', { short: 0.1 })], 0.25);
    expect(w.finalWeights).toEqual({ a: 0.75, b: 0 });
    expect(w.burnRatio).toBe(0.25);
    expect(w.burnWeight).toBe(0.25);
  });

  it('a group nobody has a score in is not present and gets no element', () => {
    const w = incentives([miner('a', { medium: 0.2 }), miner('b', { long: 0.3 })], 0);
    expect(w.groups).toEqual(['medium', 'long']);
  });

  it('with no labeled task there is one `overall` element decided by S_N (SPEC 6 choice)', () => {
    const w = incentives([miner('a', {}, 0.3), miner('b', {}, 0.6)], 0);
    expect(w.groups).toEqual([]);
    expect(w.layers).toEqual([
      {
        subsetSize: 1,
        layerWeight: 1,
        elementWeight: 1,
        elements: [{ subset: ['overall'], winners: ['b'], winningScore: 0.6 }],
      },
    ]);
    expect(w.finalWeights).toEqual({ a: 0, b: 1 });
    expect(w.burnWeight).toBe(0);
  });

  it('miners labeled in no group win nothing once some group is present', () => {
    const w = incentives([miner('a', {}, 0.9), miner('b', { short: -0.5 }, -0.5)], 0);
    expect(w.finalWeights).toEqual({ a: 0, b: 1 });
  });

  it('nobody to win: every weight is 0 and the burn weight is exactly 1', () => {
    for (const field of [[], [miner('a', {}, null)]]) {
      const w = incentives(field, 0.3);
      expect(w.rawWeights).toEqual({});
      expect(w.finalWeights).toEqual({});
      expect(w.burnWeight).toBe(1);
      expect(w.layers[0]?.elements[0]).toEqual({ subset: ['overall'], winners: [], winningScore: null });
    }
  });

  it('a hotkey named __proto__ is an ordinary key of the weight maps', () => {
    const w = incentives([miner('__proto__', {}, 0.5)], 0);
    for (const map of [w.rawWeights, w.finalWeights]) {
      expect(Object.keys(map)).toEqual(['__proto__']);
      expect(Object.hasOwn(map, '__proto__')).toBe(true);
      // The maps have no prototype that a key could replace or shadow.
      expect(Object.getPrototypeOf(map)).toBeNull();
    }
    expect(JSON.stringify(w.finalWeights)).toBe('{"__proto__":1}');
  });
});
