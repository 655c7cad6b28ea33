import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskScore } from '../../src/scoring/taskScore.js';
import type { MinerTaskSummary, ScoringTask } from '../../src/scoring/types.js';

const tokens = fc.option(fc.double({ min: 1, max: 1e7, noNaN: true }));

/** A consistent (task, miner) pair: resolved counts never exceed run counts. */
const pairs = fc
  .record({
    baselineRuns: fc.integer({ min: 1, max: 10 }),
    minerRuns: fc.integer({ min: 1, max: 10 }),
    plannedRuns: fc.option(fc.integer({ min: 0, max: 12 })),
    tb: tokens,
    ta: tokens,
    xr: fc.double({ min: 0, max: 1, noNaN: true }),
    yr: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ baselineRuns, minerRuns, plannedRuns, tb, ta, xr, yr }) => {
    const task: ScoringTask = {
      id: 't',
      stage: 'evaluation',
      complexity: null,
      plannedRuns,
      baseline: {
        runs: baselineRuns,
        resolved: Math.floor(xr * (baselineRuns + 1)) % (baselineRuns + 1),
        resolvedTokenSum: tb ?? 0,
        resolvedTokenCount: tb === null ? 0 : 1,
      },
    };
    const miner: MinerTaskSummary = {
      taskId: 't',
      hotkey: 'm',
      runs: minerRuns,
      resolved: Math.floor(yr * (minerRuns + 1)) % (minerRuns + 1),
      tokenSum: ta ?? 0,
      tokenCount: ta === null ? 0 : 1,
    };
    return { task, miner };
  });

describe('taskScore properties (SPEC 3–4)', () => {
  it('every task score lies in [−4, 3], r in [−2, 2], and a hard-boost contribution is ≥ 0', () => {
    fc.assert(
      fc.property(pairs, ({ task, miner }) => {
        const s = taskScore(task, miner);
        expect(s.r).toBeGreaterThanOrEqual(-2);
        expect(s.r).toBeLessThanOrEqual(2);
        if (s.score !== null) {
          expect(s.score).toBeGreaterThanOrEqual(-4);
          expect(s.score).toBeLessThanOrEqual(3);
        }
        if (s.hardBoostContribution !== null) expect(s.hardBoostContribution).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('with the miner’s tokens fixed, one more resolved run never lowers a scored task’s score', () => {
    fc.assert(
      fc.property(pairs, ({ task, miner }) => {
        const before = taskScore(task, miner).score;
        const after = taskScore(task, { ...miner, runs: miner.runs + 1, resolved: miner.resolved + 1 }).score;
        if (before !== null) {
          expect(after).not.toBeNull();
          expect(after as number).toBeGreaterThanOrEqual(before);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('only a task with y = 0 and x ≤ 1, or without any baseline run, is excluded', () => {
    fc.assert(
      fc.property(pairs, ({ task, miner }) => {
        const s = taskScore(task, miner);
        expect(s.zone === 'excluded').toBe(task.baseline.resolved <= 1 && miner.resolved === 0);
      }),
    );
  });
});
