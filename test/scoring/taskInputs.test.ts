import { describe, expect, it } from 'vitest';
import { aggregateRuns } from '../../src/scoring/aggregateRuns.js';
import { taskInputs } from '../../src/scoring/taskInputs.js';
import type { ScoringTask } from '../../src/scoring/types.js';
import { pair, runs } from './fixtures.js';

describe('taskInputs: compression ratio r (SPEC 3)', () => {
  it.each([
    // T_B, T_A, r
    [100, 50, 1], // SPEC 9
    [100, 10, 2], // SPEC 9: clamped
    [300, 100, 1.584962500721156], // just inside the ceiling
    [400, 100, 2], // on the ceiling
    [500, 100, 2], // beyond the ceiling
    [100, 300, -1.584962500721156], // just inside the floor
    [100, 400, -2], // on the floor
    [100, 1000, -2], // beyond the floor
    [100, 100, 0],
  ])('T_B = %d, T_A = %d gives r = clamp(log2(T_B/T_A), −2, 2) = %f', (tb, ta, want) => {
    const { task, miner } = pair(3, 3, 5, tb, ta);
    expect(taskInputs(task, miner).r).toBeCloseTo(want, 12);
  });

  it.each([
    ['T_B', null, 100],
    ['T_A', 100, null],
    ['both', null, null],
  ])('r is 0 when %s is null', (_, tb, ta) => {
    const { task, miner } = pair(3, 3, 5, tb, ta);
    const inputs = taskInputs(task, miner);
    expect(inputs.r).toBe(0);
    expect(inputs.baselineTokens).toBe(tb);
    expect(inputs.minerTokens).toBe(ta);
  });

  it('T_B and T_A are means of the summed valid counts', () => {
    const { task, miner } = pair(2, 2, 5);
    task.baseline.resolvedTokenSum = 300;
    task.baseline.resolvedTokenCount = 2;
    miner.tokenSum = 600;
    miner.tokenCount = 4;
    expect(taskInputs(task, miner)).toMatchObject({ baselineTokens: 150, minerTokens: 150, r: 0 });
  });

  it('a zero-token run is left out of T_A instead of halving it', () => {
    const { baselines, minerTasks } = aggregateRuns([
      ...runs('t', 'baseline', 'YY', 200),
      ...runs('t', 'm', 'Y', 100),
      ...runs('t', 'm', 'N', 0),
    ]);
    const baseline = baselines.get('t');
    const miner = minerTasks[0];
    if (!baseline || !miner) throw new Error('fixture');
    const task: ScoringTask = { id: 't', stage: 'evaluation', complexity: null, plannedRuns: null, baseline };
    expect(taskInputs(task, miner)).toMatchObject({ y: 1, n: 2, minerTokens: 100, r: 1 });
  });
});

describe('taskInputs: x, y, t and n (SPEC 3)', () => {
  it.each([
    [0, 0],
    [1, 0],
    [2, 1],
    [3, 2],
    [4, 3],
    [5, 4],
    [6, 4],
    [10, 8],
  ])('x = %d gives t = floor(0.8·x) = %d', (x, t) => {
    const { task, miner } = pair(x, 0, 10);
    expect(taskInputs(task, miner)).toMatchObject({ x, y: 0, t });
  });

  it.each([
    // plannedRuns, baseline runs, miner runs, n
    [8, 5, 3, 8], // from plannedRuns
    [null, 5, 3, 5], // from the baseline's run count
    [5, 5, 7, 7], // from the miner's run count
    [3, 4, 4, 4], // plannedRuns below the runs made
    [null, 0, 0, 1], // never below 1
  ])('plannedRuns %s, baseline runs %d, miner runs %d give n = %d', (planned, bRuns, mRuns, n) => {
    const { task, miner } = pair(0, 0, 1);
    task.plannedRuns = planned;
    task.baseline.runs = bRuns;
    miner.runs = mRuns;
    expect(taskInputs(task, miner).n).toBe(n);
  });

  it('n is never below x or y, even in inconsistent input', () => {
    const { task, miner } = pair(3, 6, 2);
    expect(taskInputs(task, miner).n).toBe(6);
  });
});
