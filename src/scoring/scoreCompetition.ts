import { ascending } from './ascending.js';
import { groupScoresOf } from './groupScores.js';
import { incentives } from './incentives.js';
import { aggregateSums } from './minerAggregate.js';
import { rank } from './rank.js';
import { resolveRate } from './resolveRate.js';
import { scoreTasks, type MinerTasks } from './scoreTasks.js';
import { tasksInStages } from './stages.js';
import { STAGES } from './types.js';
import type { CompetitionInput, CompetitionScores, MinerScore } from './types.js';

// Excluded miners come out of scoreTasks with no task and no run, hence no score, no group
// score and no resolve rate: they take part in nothing (SPEC 6).
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
 * SPEC 3–8 for one competition and stage set: every miner's task scores, aggregate, group
 * scores and resolve rate; the leaderboard order and ranks; the incentive weights; and the
 * baseline resolve rate over the tasks in the stages. Tasks are taken in id order and miners in
 * hotkey order wherever order matters, so shuffling the input changes no number.
 * `keepTasks: false` leaves every miner's `tasks` empty and changes no other number: for
 * callers that need only the leaderboard and weights.
 */
export function scoreCompetition(input: CompetitionInput, options: { keepTasks?: boolean } = {}): CompetitionScores {
  const stages = STAGES.filter((s) => input.stages.includes(s));
  const tasks = tasksInStages(input.tasks, stages).sort((a, b) => ascending(a.id, b.id));
  const scored = [...scoreTasks(tasks, input.miners, input.minerTasks, options.keepTasks ?? true).values()].map(
    minerScore,
  );

  const miners = rank(scored).map(({ item, rank: r }) => ((item.rank = r), item));
  const weights = incentives(
    miners.filter((m) => !m.excluded),
    input.burnRatio,
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
