import { describe, expect, it } from 'vitest';
import { resolveRate } from '../../src/scoring/resolveRate.js';

describe('resolveRate (SPEC 7 Task Resolve Rate)', () => {
  it.each([
    [3, 4, 0.75],
    [0, 5, 0],
    [5, 5, 1],
  ])('%d resolved of %d graded runs is %f', (resolved, graded, want) => {
    expect(resolveRate(resolved, graded)).toBe(want);
  });

  it('is null with no graded run, never 0 or a vacuous 1', () => {
    expect(resolveRate(0, 0)).toBeNull();
    expect(resolveRate(0, Number.NaN)).toBeNull();
  });
});
