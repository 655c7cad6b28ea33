import { ascending } from './ascending.js';
import { competitionScores } from './competitionScores.js';
import { scoreTasks } from './scoreTasks.js';
import { tasksInStages } from './stages.js';
import { STAGES } from './types.js';
import type { CompetitionInput, CompetitionScores } from './types.js';

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
  const scored = scoreTasks(tasks, input.miners, input.minerTasks, options.keepTasks ?? true).values();
  return competitionScores(stages, tasks, scored, input.burnRatio);
}
