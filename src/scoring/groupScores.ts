import { addTask, aggregateSums, emptySums, type ScoredTask, type ScoreSums } from './minerAggregate.js';
import type { Complexity, GroupScores } from './types.js';

/** SPEC 5 running sums per complexity group, filled in the same pass as the miner's own. */
export interface GroupSums {
  short: ScoreSums;
  medium: ScoreSums;
  long: ScoreSums;
}

export type GroupedTask = ScoredTask & { complexity: Complexity | null };

export function emptyGroupSums(): GroupSums {
  return { short: emptySums(), medium: emptySums(), long: emptySums() };
}

/** Adds a task to its group's sums; a task without a complexity enters no group. */
export function addGroupTask(sums: GroupSums, task: GroupedTask): void {
  if (task.complexity === 'short') addTask(sums.short, task);
  else if (task.complexity === 'medium') addTask(sums.medium, task);
  else if (task.complexity === 'long') addTask(sums.long, task);
}

/** G_g for every group with a scored task; the others are absent, not 0. */
export function groupScoresOf(sums: GroupSums): GroupScores {
  const scores: GroupScores = {};
  const short = aggregateSums(sums.short).normalizedScore;
  const medium = aggregateSums(sums.medium).normalizedScore;
  const long = aggregateSums(sums.long).normalizedScore;
  if (short !== null) scores.short = short;
  if (medium !== null) scores.medium = medium;
  if (long !== null) scores.long = long;
  return scores;
}
