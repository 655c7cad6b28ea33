// SPEC 13: the coverage rule over plain aggregates.
import { describe, expect, it } from 'vitest';
import { compareKeys, coveragePairs } from '../../src/scoring/coverage.js';
import { EMPTY_BASELINE, type MinerTaskSummary, type ScoringTask, type Stage } from '../../src/scoring/index.js';

const task = (id: string, stage: Stage, plannedRuns: number | null, baselineRuns = 0): ScoringTask => ({
  id,
  stage,
  complexity: null,
  plannedRuns,
  baseline: { ...EMPTY_BASELINE, runs: baselineRuns },
});
const pair = (taskId: string, hotkey: string, runs: number): MinerTaskSummary => ({
  taskId,
  hotkey,
  runs,
  resolved: 0,
  tokenSum: 0,
  tokenCount: 0,
});

describe('coveragePairs', () => {
  const tasks = [task('t2', 'evaluation', null, 6), task('t1', 'evaluation', 2, 1), task('s', 'screener_1', null)];

  it('lists every chosen task with its baseline and every miner seen anywhere; missing = max(0, planned - have)', () => {
    const got = coveragePairs(tasks, [pair('t1', 'b', 3), pair('s', 'a', 1)], ['evaluation'], 5);
    expect(got).toEqual([
      { taskId: 't1', miner: 'baseline', planned: 2, have: 1, missing: 1 },
      { taskId: 't1', miner: 'a', planned: 2, have: 0, missing: 2 },
      { taskId: 't1', miner: 'b', planned: 2, have: 3, missing: 0 },
      { taskId: 't2', miner: 'baseline', planned: 5, have: 6, missing: 0 },
      { taskId: 't2', miner: 'a', planned: 5, have: 0, missing: 5 },
      { taskId: 't2', miner: 'b', planned: 5, have: 0, missing: 5 },
    ]);
  });

  it('leaves out a miner whose pairs hold no run, and answers no pair without a task', () => {
    expect(coveragePairs(tasks, [pair('t1', 'z', 0)], ['evaluation'], 5).map((p) => p.miner)).toEqual([
      'baseline',
      'baseline',
    ]);
    expect(coveragePairs([], [pair('t1', 'a', 1)], ['evaluation'], 5)).toEqual([]);
  });

  it('leaves out an excluded miner, seen in runs or registered (SPEC 6: it takes part in nothing)', () => {
    const listed = [
      { hotkey: 'b', excluded: true },
      { hotkey: 'r', excluded: true },
      { hotkey: 'a', excluded: false },
    ];
    const got = coveragePairs(tasks, [pair('t1', 'b', 3), pair('s', 'a', 1)], ['evaluation'], 5, ['r', 'q'], listed);
    expect(got.map((p) => `${p.taskId}/${p.miner}`)).toEqual([
      't1/baseline',
      't1/a',
      't1/q',
      't2/baseline',
      't2/a',
      't2/q',
    ]);
  });

  it.each([
    [{ taskId: 'a', miner: 'z' }, { taskId: 'b', miner: 'baseline' }, -1],
    [{ taskId: 'a', miner: 'baseline' }, { taskId: 'a', miner: 'A' }, -1],
    [{ taskId: 'a', miner: 'B' }, { taskId: 'a', miner: 'a' }, -1],
    [{ taskId: 'a', miner: 'x' }, { taskId: 'a', miner: 'x' }, 0],
  ])('orders %j before %j (%i)', (a, b, sign) => {
    expect(Math.sign(compareKeys(a, b))).toBe(sign);
    expect(Math.sign(compareKeys(b, a))).toBe(-sign || 0);
  });
});
