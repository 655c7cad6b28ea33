import { describe, expect, it } from 'vitest';
import { combinations } from '../../src/scoring/combinations.js';

describe('combinations', () => {
  it.each([
    [3, [['s', 'm', 'l']]],
    [
      2,
      [
        ['s', 'm'],
        ['s', 'l'],
        ['m', 'l'],
      ],
    ],
    [1, [['s'], ['m'], ['l']]],
  ])('lists every %d-subset in positional order', (k, want) => {
    expect(combinations(['s', 'm', 'l'], k)).toEqual(want);
  });

  it.each([0, 4, -1, 1.5])('k = %d out of range gives no subset', (k) => {
    expect(combinations(['s', 'm', 'l'], k)).toEqual([]);
  });

  it('no items give no subset', () => {
    expect(combinations([], 1)).toEqual([]);
  });
});
