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
 * A kept score with a new rank and weights: a new object written field by field in minerScore's
 * order, so every score has the one hidden class. A spread copy (`{ ...score, rank }`) has another,
 * and the functions reading scores (the filter below, rank, the contests, the body's assembly)
 * went polymorphic and were deoptimized and compiled again through the first reads after a write.
 */
function reranked(s: MinerScore, rank: number | null, rawWeight: number, finalWeight: number): MinerScore {
  return {
    hotkey: s.hotkey,
    excluded: s.excluded,
    rank,
    normalizedScore: s.normalizedScore,
    rawTotal: s.rawTotal,
    mainScore: s.mainScore,
    hardBoost: s.hardBoost,
    taskCounts: s.taskCounts,
    groupScores: s.groupScores,
    runs: s.runs,
    resolvedRuns: s.resolvedRuns,
    resolveRate: s.resolveRate,
    incentive: { rawWeight, finalWeight },
    tasks: s.tasks,
  };
}

/**
 * SPEC 5–6 from every miner's SPEC 5 sums: the aggregates, the leaderboard order and ranks, the
 * incentive weights; and the baseline resolve rate over `tasks` (the tasks in the stages, by id).
 * Shared by the full and the incremental scorer, so both give the same output from the same sums.
 *
 * `kept`: a miner's score from an earlier scoring whose sums and totals were these very ones (the
 * incremental scorer's unchanged records), or undefined. It is never changed: it is taken as it is
 * when its rank and weights are still the same, else copied with the new ones. An unchanged miner
 * then costs no new object, and a consumer may tell it unchanged by identity (a leaderboard
 * entry's bytes).
 */
export function competitionScores(
  stages: Stage[],
  tasks: readonly ScoringTask[],
  scoredMiners: Iterable<MinerTasks>,
  burnRatio: number,
  kept?: (m: MinerTasks) => MinerScore | undefined,
): CompetitionScores {
  const scored: MinerScore[] = [];
  // The kept scores, which are never changed; those made here are completed in place.
  const reused = new Set<MinerScore>();
  for (const m of scoredMiners) {
    const score = kept?.(m);
    if (score) reused.add(score);
    scored.push(score ?? minerScore(m));
  }
  // In the order given: incentives orders them by hotkey, a single pass when they come so (the
  // incremental scorer's records do).
  const weights = incentives(
    scored.filter((m) => !m.excluded),
    burnRatio,
  );
  const miners = rank(scored).map(({ item, rank: r }) => {
    // hasOwn: a hotkey such as `constructor` must not read Object.prototype.
    const paid = Object.hasOwn(weights.rawWeights, item.hotkey);
    const rawWeight = paid ? (weights.rawWeights[item.hotkey] ?? 0) : 0;
    const finalWeight = paid ? (weights.finalWeights[item.hotkey] ?? 0) : 0;
    const { incentive } = item;
    if (item.rank === r && Object.is(incentive.rawWeight, rawWeight) && Object.is(incentive.finalWeight, finalWeight))
      return item;
    if (reused.has(item)) return reranked(item, r, rawWeight, finalWeight);
    item.rank = r;
    incentive.rawWeight = rawWeight;
    incentive.finalWeight = finalWeight;
    return item;
  });

  let runs = 0;
  let resolved = 0;
  for (const task of tasks) {
    runs += task.baseline.runs;
    resolved += task.baseline.resolved;
  }
  return { stages, miners, weights, baseline: { runs, resolved, resolveRate: resolveRate(resolved, runs) } };
}
