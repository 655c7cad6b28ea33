import { describe, expect, it } from 'vitest';
import { minerAggregate, type ScoredTask } from '../../src/scoring/minerAggregate.js';

const main = (score: number, weight: number): ScoredTask => ({
  pool: 'main',
  score,
  weight,
  hardBoostContribution: null,
});
const hard = (score: number): ScoredTask => ({
  pool: 'hard_boost',
  score,
  weight: null,
  hardBoostContribution: Math.max(0, score),
});
const excluded: ScoredTask = { pool: 'excluded', score: null, weight: null, hardBoostContribution: null };
const CBRT2 = 1.2599210498948732; // weight of a main task with x = 2

describe('minerAggregate (SPEC 5)', () => {
  // Rows: tasks, S_M, B_H, S_R, S_N.
  it.each([
    ['SPEC 9: main s = 1 (x = 8), hard h = 0.5', [main(1, 2), hard(0.5)], 1, 0.25, 1.25, 0.5],
    ['SPEC 9: raw total 5 is clamped to 3', [main(3, 2), hard(3), hard(3)], 3, 2, 5, 1],
    ['S_C just inside the ceiling 3', [main(2.9, 2)], 2.9, 0, 2.9, 0.9714285714285714],
    ['S_C on the floor −4', [main(-4, 2)], -4, 0, -4, -1],
    ['S_C just inside the floor −4', [main(-3.9, 2)], -3.9, 0, -3.9, -0.9714285714285714],
    [
      'S_M weighs by x^(1/3)',
      [main(1, 2), main(-2, CBRT2)],
      -0.15946462869292813,
      0,
      -0.15946462869292813,
      0.09729582037344911,
    ],
    ['S_M = 0 without main tasks', [hard(0.6)], 0, 0.6, 0.6, 0.31428571428571433],
    ['B_H = 0 without hard tasks', [main(1, 2)], 1, 0, 1, 3 / 7],
    [
      'a negative hard task adds 0 but counts in N_H',
      [main(0, 2), hard(1), hard(-1)],
      0,
      1 / 3,
      1 / 3,
      0.23809523809523808,
    ],
    ['excluded tasks change nothing', [main(1, 2), excluded, hard(0.5), excluded], 1, 0.25, 1.25, 0.5],
  ])('%s', (_, tasks, sm, bh, sr, sn) => {
    const a = minerAggregate(tasks);
    expect(a.mainScore).toBeCloseTo(sm, 12);
    expect(a.hardBoost).toBeCloseTo(bh, 12);
    expect(a.rawTotal).toBeCloseTo(sr, 12);
    expect(a.normalizedScore).toBeCloseTo(sn, 12);
  });

  it('counts tasks per pool', () => {
    expect(minerAggregate([main(1, 2), excluded, hard(0.5), excluded, hard(0)]).taskCounts).toEqual({
      main: 1,
      hardBoost: 2,
      excluded: 2,
    });
  });

  it('no task in main or hard_boost gives null everywhere, not S_N = 1/7 (SPEC 5 choice)', () => {
    const nothing = { normalizedScore: null, rawTotal: null, mainScore: null, hardBoost: null };
    expect(minerAggregate([])).toEqual({ ...nothing, taskCounts: { main: 0, hardBoost: 0, excluded: 0 } });
    expect(minerAggregate([excluded, excluded])).toEqual({
      ...nothing,
      taskCounts: { main: 0, hardBoost: 0, excluded: 2 },
    });
  });
});
