import { groupScoresOf } from './groupScores.js';
import { incentives } from './incentives.js';
import { aggregateSums } from './minerAggregate.js';
import { rank } from './rank.js';
import { resolveRate } from './resolveRate.js';
import type { MinerTasks } from './scoreTasks.js';
import type { CompetitionScores, MinerScore, ScoringTask, Stage } from './types.js';

// Excluded miners come with no task and no run, hence no score, no group score and no resolve
// rate: they take part in nothing (SPEC 6).
function minerScore(m: MinerTasks): MinerScore {
  const a = aggregateSums(m.sums);
  return {
    hotkey: m.hotkey,
    excluded: m.excluded,
    rank: null,
    normalizedScore: a.normalizedScore,
    rawTotal: a.rawTotal,
    mainScore: a.mainScore,
    hardBoost: a.hardBoost,
    taskCounts: a.taskCounts,
    groupScores: groupScoresOf(m.groups),
    runs: m.runs,
    resolvedRuns: m.resolved,
    resolveRate: resolveRate(m.resolved, m.runs),
    incentive: { rawWeight: 0, finalWeight: 0 },
    tasks: m.tasks,
  };
}

/**
 * SPEC 5–6 from every miner's SPEC 5 sums: the aggregates, the leaderboard order and ranks, the
 * incentive weights; and the baseline resolve rate over `tasks` (the tasks in the stages, by id).
 * Shared by the full and the incremental scorer, so both give the same output from the same sums.
 */
export function competitionScores(
  stages: Stage[],
  tasks: readonly ScoringTask[],
  scoredMiners: Iterable<MinerTasks>,
  burnRatio: number,
): CompetitionScores {
  const scored: MinerScore[] = [];
  for (const m of scoredMiners) scored.push(minerScore(m));
  const miners = rank(scored).map(({ item, rank: r }) => ((item.rank = r), item));
  // In the order given: incentives orders them by hotkey, a single pass when they come so (the
  // incremental scorer's records do).
  const weights = incentives(
    scored.filter((m) => !m.excluded),
    burnRatio,
  );
  for (const m of miners) {
    // hasOwn: a hotkey such as `constructor` must not read Object.prototype.
    if (!Object.hasOwn(weights.rawWeights, m.hotkey)) continue;
    m.incentive.rawWeight = weights.rawWeights[m.hotkey] ?? 0;
    m.incentive.finalWeight = weights.finalWeights[m.hotkey] ?? 0;
  }

  let runs = 0;
  let resolved = 0;
  for (const task of tasks) {
    runs += task.baseline.runs;
    resolved += task.baseline.resolved;
  }
  return { stages, miners, weights, baseline: { runs, resolved, resolveRate: resolveRate(resolved, runs) } };
}
