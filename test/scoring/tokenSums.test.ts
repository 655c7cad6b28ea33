import { describe, expect, it } from 'vitest';
import { addRunTokens, emptyTokenSums, entersTokenMean, weightedSum } from '../../src/scoring/tokenSums.js';
import { DEFAULT_TOKEN_WEIGHTS as W } from '../../src/scoring/weightedTokens.js';

const counts = { input: 60, cachedInput: 100, output: 10 };

describe('tokenSums (SPEC 2, 3)', () => {
  it.each([
    ['a miner run, resolved', 'miner', true, counts, true],
    ['a miner run, not resolved (T_A averages every run)', 'miner', false, counts, true],
    ['a resolved baseline run', 'baseline', true, counts, true],
    ['an unresolved baseline run (T_B averages resolved runs only)', 'baseline', false, counts, false],
    ['a run without counts', 'miner', true, null, false],
    ['a run whose weighted count is 0', 'miner', true, { input: 0, output: 0 }, false],
    ['a run with a negative count', 'miner', true, { input: -1, output: 10 }, false],
  ] as const)('%s enters the token mean: %s', (_title, kind, resolved, tokens, want) => {
    expect(entersTokenMean({ kind, resolved, tokens }, W)).toBe(want);
  });

  it('adds raw counts (missing cached as 0) and takes them out again exactly', () => {
    const sums = emptyTokenSums();
    addRunTokens(sums, { kind: 'miner', resolved: false, tokens: counts }, W);
    addRunTokens(sums, { kind: 'miner', resolved: false, tokens: { input: 5, output: 1 } }, W);
    expect(sums).toEqual({ count: 2, input: 65, cached: 100, output: 11 });
    addRunTokens(sums, { kind: 'miner', resolved: false, tokens: counts }, W, -1);
    expect(sums).toEqual({ count: 1, input: 5, cached: 0, output: 1 });
  });

  it('leaves the sums alone for a run that does not enter the mean', () => {
    const sums = emptyTokenSums();
    addRunTokens(sums, { kind: 'baseline', resolved: false, tokens: counts }, W);
    expect(sums).toEqual(emptyTokenSums());
  });

  it('weights the sums once: wi·ΣTi + wc·ΣTc + wo·ΣTo (SPEC 9 row 1)', () => {
    expect(weightedSum({ count: 1, input: 1000, cached: 10000, output: 100 }, W)).toBe(2300);
    expect(weightedSum(emptyTokenSums(), W)).toBe(0);
  });
});
