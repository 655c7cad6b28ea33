import { describe, expect, it } from 'vitest';
import { emitWeights, roundHalfEven } from '../../src/scoring/emitWeights.js';
import sdk from './sdk/emitted.json' with { type: 'json' };

const floats = (uids: number[], values: number[]) => new Map(uids.map((u, i) => [u, values[i]!]));

describe('roundHalfEven (SPEC 11: Python’s round)', () => {
  it.each([
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [3.5, 4],
    [32767.5, 32768],
    [65534.5, 65534],
    [2.4999999999999996, 2],
    [2.5000000000000004, 3],
    [7, 7],
  ])('round(%d) = %d', (x, expected) => {
    expect(roundHalfEven(x)).toBe(expected);
  });
});

describe('emitWeights (SPEC 11: convert_weights_and_uids_for_emit)', () => {
  // Expected values from the SDK's arithmetic in Python: test/scoring/sdk/weight_utils.py.
  it.each(Object.entries(sdk))('%s: the integers the SDK emits', (_name, c) => {
    expect(emitWeights(floats(c.uids, c.floats))).toEqual(c.emitted);
  });

  it('ties at the maximum both get 65535; half of the maximum is 32767.5, rounded to the even 32768', () => {
    expect(emitWeights(floats([7, 3, 5], [0.4, 0.4, 0.2]))).toEqual({
      uids: [3, 5, 7],
      weights: [65535, 32768, 65535],
    });
  });

  it('a .5 after scaling rounds to even: 2.5 is 2 and 0.5 is 0, left out (Math.round would give 3 and 1)', () => {
    expect(emitWeights(floats([1, 2, 0], [2.5 / 65535, 0.5 / 65535, 1]))).toEqual({
      uids: [0, 1],
      weights: [65535, 2],
    });
  });

  it('every float 0: the vector is empty', () => {
    expect(emitWeights(floats([0, 4], [0, 0]))).toEqual({ uids: [], weights: [] });
  });

  it('no float at all: the vector is empty', () => {
    expect(emitWeights(new Map())).toEqual({ uids: [], weights: [] });
  });

  it('a single uid gets 65535 whatever its float', () => {
    expect(emitWeights(floats([9], [0.001]))).toEqual({ uids: [9], weights: [65535] });
  });

  it('uids come out ascending whatever order they are given in', () => {
    expect(emitWeights(floats([65535, 0, 300], [1, 1, 1])).uids).toEqual([0, 300, 65535]);
  });
});
