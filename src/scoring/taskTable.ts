import { taskScorer } from './taskScore.js';
import { COMPLEXITIES } from './types.js';
import type { MinerTaskSummary, ScoringTask, TaskScore } from './types.js';

/**
 * The tasks in the chosen stages, by id, as the incremental scorer keeps them: each task's
 * index (its first place, as `bucketByTask` takes it), main-pool weight x^(1/3), complexity group
 * and scorer (made on first use).
 */
export interface TaskTable {
  readonly tasks: readonly ScoringTask[];
  readonly index: ReadonlyMap<string, number>;
  readonly weights: Float64Array;
  /** Each task's group: 0 short, 1 medium, 2 long, -1 none. */
  readonly groups: Int8Array;
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
  const groups = Int8Array.from(tasks, (task) => (COMPLEXITIES as readonly unknown[]).indexOf(task.complexity));
  return { tasks, index: byId, weights, groups, scorers: [] };
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
