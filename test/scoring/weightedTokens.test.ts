import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_WEIGHTS, isValidTokens, weightedTokens } from '../../src/scoring/weightedTokens.js';

describe('weightedTokens (SPEC 2)', () => {
  it('defaults to weights 1 / 0.1 / 3', () => {
    expect(DEFAULT_TOKEN_WEIGHTS).toEqual({ input: 1, cachedInput: 0.1, output: 3 });
  });

  it.each([
    // SPEC 9 rows 1 and 2
    [{ input: 1000, cachedInput: 10000, output: 100 }, 2300],
    [{ input: 60, output: 10 }, 90],
    [{ input: 60, cachedInput: null, output: 10 }, 90],
    [{ input: 0, cachedInput: 0, output: 0 }, 0],
  ])('T = wi·Ti + wc·Tc + wo·To with a missing cached count as 0: %o → %d', (counts, want) => {
    expect(weightedTokens(counts)).toBeCloseTo(want, 9);
  });

  it.each([
    ['missing input', { output: 10 }],
    ['missing output', { input: 10, cachedInput: 5 }],
    ['null input', { input: null, output: 10 }],
    ['negative input', { input: -1, output: 10 }],
    ['negative cached', { input: 1, cachedInput: -1, output: 10 }],
    ['negative output', { input: 1, output: -10 }],
    ['NaN output', { input: 1, output: Number.NaN }],
    ['infinite input', { input: Number.POSITIVE_INFINITY, output: 1 }],
  ])('T is null (invalid) with %s', (_, counts) => {
    expect(weightedTokens(counts)).toBeNull();
  });

  it('T is null for no counts at all', () => {
    expect(weightedTokens(null)).toBeNull();
    expect(weightedTokens(undefined)).toBeNull();
  });

  it('uses a competition’s own weights', () => {
    expect(weightedTokens({ input: 10, cachedInput: 100, output: 1 }, { input: 2, cachedInput: 0, output: 5 })).toBe(
      25,
    );
  });

  it('T is null under a negative or non-finite weight', () => {
    expect(weightedTokens({ input: 1, output: 1 }, { input: -1, cachedInput: 0.1, output: 3 })).toBeNull();
    expect(weightedTokens({ input: 1, output: 1 }, { input: 1, cachedInput: Number.NaN, output: 3 })).toBeNull();
  });
});

describe('isValidTokens (SPEC 2 choice)', () => {
  it.each([
    [2300, true],
    [0.1, true],
    [0, false],
    [null, false],
    [-5, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
  ])('a weighted count %s is valid only when not null and > 0: %s', (t, want) => {
    expect(isValidTokens(t)).toBe(want);
  });
});
