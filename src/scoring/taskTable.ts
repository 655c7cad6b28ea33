import { taskScorer } from './taskScore.js';
import type { MinerTaskSummary, ScoringTask, TaskScore } from './types.js';

/**
 * The tasks in the chosen stages, by id, as the incremental scorer keeps them: each task's
 * index (its first place, as `bucketByTask` takes it), main-pool weight x^(1/3) and scorer
 * (made on first use).
 */
export interface TaskTable {
  readonly tasks: readonly ScoringTask[];
  readonly index: ReadonlyMap<string, number>;
  readonly weights: Float64Array;
  readonly scorers: ((miner: MinerTaskSummary) => TaskScore)[];
}

export function taskTable(tasks: readonly ScoringTask[], index?: ReadonlyMap<string, number>): TaskTable {
  let byId = index;
  if (!byId) {
    const made = new Map<string, number>();
    tasks.forEach((task, i) => made.has(task.id) || made.set(task.id, i));
    byId = made;
  }
  // The same operation as taskScorer's, so sums match the full scorer's bit for bit.
  const weights = Float64Array.from(tasks, (task) => Math.cbrt(task.baseline.resolved));
  return { tasks, index: byId, weights, scorers: [] };
}

export function scorerOf(table: TaskTable, i: number): (miner: MinerTaskSummary) => TaskScore {
  return (table.scorers[i] ??= taskScorer(table.tasks[i] as ScoringTask));
}

/** Whether two tasks score every miner the same (SPEC 3–4 read nothing else of a task). */
export function sameTask(a: ScoringTask, b: ScoringTask): boolean {
  return (
    a.id === b.id &&
    a.stage === b.stage &&
    a.complexity === b.complexity &&
    Object.is(a.plannedRuns, b.plannedRuns) &&
    Object.is(a.baseline.runs, b.baseline.runs) &&
    Object.is(a.baseline.resolved, b.baseline.resolved) &&
    Object.is(a.baseline.resolvedTokenSum, b.baseline.resolvedTokenSum) &&
    Object.is(a.baseline.resolvedTokenCount, b.baseline.resolvedTokenCount)
  );
}

/** Whether two entries of the same pair score the same. */
export function sameEntry(a: MinerTaskSummary, b: MinerTaskSummary): boolean {
  return (
    Object.is(a.runs, b.runs) &&
    Object.is(a.resolved, b.resolved) &&
    Object.is(a.tokenSum, b.tokenSum) &&
    Object.is(a.tokenCount, b.tokenCount)
  );
}
