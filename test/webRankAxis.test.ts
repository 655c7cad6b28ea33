// The weight-by-rank chart's x axis (web/src/charts/rankAxis.ts): labels only on whole ranks, and
// a range half a rank wider than the ranks each side, so bars centred on the first and last rank
// are drawn whole.
import { describe, expect, it } from 'vitest';
import { RANK_INCRS, rankRange, rankTicks } from '../web/src/charts/rankAxis.js';

describe('rank axis', () => {
  it('labels whole ranks and leaves halves blank', () => {
    expect(rankTicks([0.5, 1, 1.5, 2, 2.5, 3])).toEqual(['', '1', '', '2', '', '3']);
  });

  it('steps only by whole ranks', () => {
    expect(RANK_INCRS.every((i) => Number.isInteger(i) && i >= 1)).toBe(true);
  });

  it.each([
    [1, 1, [0.5, 1.5]],
    [1, 3, [0.5, 3.5]],
    [1, 256, [0.5, 256.5]],
  ])('ranks %d..%d: the range leaves half a rank each side', (min, max, range) => {
    expect(rankRange(min, max)).toEqual(range);
    // A bar as wide as 0.8 of a rank (Chart.tsx) at the first and last rank stays inside.
    expect(min - 0.4).toBeGreaterThanOrEqual(range[0]!);
    expect(max + 0.4).toBeLessThanOrEqual(range[1]!);
  });

  it('no ranks: a range of one rank, not NaN', () => {
    expect(rankRange(null, null)).toEqual([0.5, 1.5]);
  });
});
