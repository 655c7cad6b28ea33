import { clamp } from './clamp.js';
import type { MinerTaskSummary, ScoringTask, TaskInputs } from './types.js';

/** The part of a (task, miner) summary that SPEC 3 reads. */
export type RunTotals = Pick<MinerTaskSummary, 'runs' | 'resolved' | 'tokenSum' | 'tokenCount'>;

/**
 * T_B or T_A from a sum and a count of valid weighted counts, which are all > 0 (SPEC 2).
 * Null when there is none, or when the sums are not those of valid counts.
 */
export function meanTokens(sum: number, count: number): number | null {
  if (!(count > 0)) return null;
  const mean = sum / count;
  return Number.isFinite(mean) && mean > 0 ? mean : null;
}

/** r = clamp(log2(T_B/T_A), −2, 2); 0, neutral rather than a penalty, without both means. */
export function compressionRatio(baselineTokens: number | null, minerTokens: number | null): number {
  if (baselineTokens === null || minerTokens === null) return 0;
  return clamp(Math.log2(baselineTokens / minerTokens), -2, 2);
}

/**
 * The part of n that depends on the task alone: max(plannedRuns or 0, baseline runs, x, 1).
 * The miner's run count and y are added per miner. x and y are in the max although they never
 * exceed their run counts in consistent input: n ≥ y > x then holds even for inconsistent
 * input, so the bonus formula never divides by zero.
 */
export function taskRuns(task: ScoringTask): number {
  const planned = task.plannedRuns !== null && Number.isFinite(task.plannedRuns) ? task.plannedRuns : 0;
  return Math.max(planned, task.baseline.runs, task.baseline.resolved, 1);
}

/** t = ⌊0.8·x⌋, computed as ⌊4x/5⌋, which is exact for integer x. */
export function threshold(x: number): number {
  return Math.floor((4 * x) / 5);
}

/** SPEC 3 inputs x, y, n, t, T_B, T_A and r of one miner on one task. */
export function taskInputs(task: ScoringTask, miner: RunTotals): TaskInputs {
  const { baseline } = task;
  const x = baseline.resolved;
  const y = miner.resolved;
  const baselineTokens = meanTokens(baseline.resolvedTokenSum, baseline.resolvedTokenCount);
  const minerTokens = meanTokens(miner.tokenSum, miner.tokenCount);
  return {
    x,
    y,
    n: Math.max(taskRuns(task), miner.runs, y),
    t: threshold(x),
    baselineTokens,
    minerTokens,
    r: compressionRatio(baselineTokens, minerTokens),
  };
}
