import { compressionRatio, meanTokens, taskRuns, threshold } from './taskInputs.js';
import type { MinerTaskSummary, ScoringTask, TaskScore } from './types.js';
import { taskPool, taskZone, zoneScore } from './zoneScore.js';

/**
 * SPEC 3–4 for one task, prepared once: returns the function that scores one miner's runs on
 * it (inputs, zone, pool, score, main weight x^(1/3), hard-boost contribution max(0, s)). What
 * depends on the task alone is computed once, not once per miner, and each call allocates just
 * the result: the server scores some 80,000 (task, miner) pairs per read.
 *
 * SPEC 3 (choice): a task with no baseline run at all is excluded for every miner until its
 * first baseline run lands. Scoring it as x = 0 would hand every miner a hard-task bonus that
 * vanishes as soon as the baseline arrives.
 */
export function taskScorer(task: ScoringTask): (miner: MinerTaskSummary) => TaskScore {
  const { id: taskId, stage, complexity, baseline } = task;
  const x = baseline.resolved;
  const t = threshold(x);
  const runs = taskRuns(task);
  const baselineTokens = meanTokens(baseline.resolvedTokenSum, baseline.resolvedTokenCount);
  const hasBaseline = baseline.runs > 0;
  const mainWeight = Math.cbrt(x);
  return (miner) => {
    const y = miner.resolved;
    const n = Math.max(runs, miner.runs, y);
    const minerTokens = meanTokens(miner.tokenSum, miner.tokenCount);
    const r = compressionRatio(baselineTokens, minerTokens);
    const zone = hasBaseline ? taskZone(x, y, t) : 'excluded';
    const pool = taskPool(zone, x);
    const score = zoneScore(zone, x, y, n, t, r);
    return {
      taskId,
      hotkey: miner.hotkey,
      stage,
      complexity,
      runs: miner.runs,
      x,
      y,
      n,
      t,
      baselineTokens,
      minerTokens,
      r,
      zone,
      pool,
      score,
      weight: pool === 'main' ? mainWeight : null,
      hardBoostContribution: pool === 'hard_boost' && score !== null ? Math.max(0, score) : null,
    };
  };
}

/** SPEC 3–4 for one miner on one task. */
export function taskScore(task: ScoringTask, miner: MinerTaskSummary): TaskScore {
  return taskScorer(task)(miner);
}
