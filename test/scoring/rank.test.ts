import { describe, expect, it } from 'vitest';
import { rank } from '../../src/scoring/rank.js';

const ranks = (items: [string, number | null][]): [string, number | null][] =>
  rank(items.map(([hotkey, normalizedScore]) => ({ hotkey, normalizedScore }))).map((r) => [r.item.hotkey, r.rank]);

describe('rank (SPEC 5 leaderboard)', () => {
  it('orders by S_N descending, then hotkey ascending', () => {
    expect(
      ranks([
        ['c', 0.1],
        ['a', 0.5],
        ['b', 0.9],
      ]),
    ).toEqual([
      ['b', 1],
      ['a', 2],
      ['c', 3],
    ]);
  });

  it('equal scores share a rank and the next rank skips (1, 2, 2, 4), tied miners by hotkey', () => {
    expect(
      ranks([
        ['d', 0.1],
        ['c', 0.5],
        ['b', 0.5],
        ['a', 0.9],
      ]),
    ).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 2],
      ['d', 4],
    ]);
  });

  it('scores within 1e−12 share a rank and list by hotkey', () => {
    expect(
      ranks([
        ['a', 0.5],
        ['b', 0.5 + 5e-13],
      ]),
    ).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('scores 1e−11 apart do not share a rank', () => {
    expect(
      ranks([
        ['a', 0.5],
        ['b', 0.5 + 1e-11],
      ]),
    ).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
  });

  it('a tie is measured from the group’s best, so small gaps do not chain', () => {
    expect(
      ranks([
        ['a', 0.5],
        ['b', 0.5 - 0.8e-12],
        ['c', 0.5 - 1.6e-12],
      ]),
    ).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 3],
    ]);
  });

  it('hotkeys compare by code unit, not locale', () => {
    expect(
      ranks([
        ['b', 0],
        ['B', 0],
        ['a', 0],
      ]),
    ).toEqual([
      ['B', 1],
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('miners without a score follow the ranked ones, by hotkey, without a rank', () => {
    expect(
      ranks([
        ['z', null],
        ['y', -1],
        ['a', null],
      ]),
    ).toEqual([
      ['y', 1],
      ['a', null],
      ['z', null],
    ]);
  });

  it('empty input gives an empty leaderboard', () => {
    expect(rank([])).toEqual([]);
  });
});
