import { describe, expect, it } from 'vitest';
import { winners } from '../../src/scoring/winners.js';

const entries = (list: [string, number][]) => list.map(([hotkey, score]) => ({ hotkey, score }));

describe('winners (SPEC 6)', () => {
  it('the best contest score wins', () => {
    expect(
      winners(
        entries([
          ['a', 0.2],
          ['b', 0.7],
          ['c', 0.5],
        ]),
      ),
    ).toEqual({ winners: ['b'], winningScore: 0.7 });
  });

  it('every score equal to the best within 1e−12 wins, listed by hotkey', () => {
    expect(
      winners(
        entries([
          ['c', 0.7],
          ['a', 0.7 - 5e-13],
          ['b', 0.6],
        ]),
      ).winners,
    ).toEqual(['a', 'c']);
  });

  it('a score 1e−11 below the best does not win', () => {
    expect(
      winners(
        entries([
          ['a', 0.7],
          ['b', 0.7 - 1e-11],
        ]),
      ).winners,
    ).toEqual(['a']);
  });

  it('the tolerance is also relative for large scores', () => {
    expect(
      winners(
        entries([
          ['a', 1e6],
          ['b', 1e6 * (1 - 5e-13)],
        ]),
      ).winners,
    ).toEqual(['a', 'b']);
  });

  it('a negative score can win', () => {
    expect(
      winners(
        entries([
          ['a', -0.9],
          ['b', -0.4],
        ]),
      ),
    ).toEqual({ winners: ['b'], winningScore: -0.4 });
  });

  it('nobody competing gives no winner and a null winning score', () => {
    expect(winners([])).toEqual({ winners: [], winningScore: null });
  });
});
