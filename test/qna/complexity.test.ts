import { describe, expect, it } from 'vitest';
import { complexityForRubricSize } from '../../src/qna/index.js';

describe('complexityForRubricSize', () => {
  it.each([
    [1, 'short'],
    [5, 'short'],
    [8, 'short'],
    [9, 'medium'],
    [12, 'medium'],
    [13, 'long'],
    [26, 'long'],
  ])('%i criteria is %s (up to 8 short, 9 to 12 medium, 13+ long)', (n, expected) => {
    expect(complexityForRubricSize(n)).toBe(expected);
  });

  it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])(
    '%d criteria has no complexity (null, not a throw)',
    (n) => {
      expect(complexityForRubricSize(n)).toBeNull();
    },
  );
});
