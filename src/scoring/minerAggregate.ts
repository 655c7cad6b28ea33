import { clamp } from './clamp.js';
import type { MinerAggregate, TaskScore } from './types.js';

/** The part of a task score that SPEC 5 reads. */
export type ScoredTask = Pick<TaskScore, 'pool' | 'score' | 'weight' | 'hardBoostContribution'>;

/** Running sums behind SPEC 5, so several aggregates can share one pass over the tasks. */
export interface ScoreSums {
  main: number;
  hardBoost: number;
  excluded: number;
  weightedSum: number;
  weightSum: number;
  boostSum: number;
}

export function emptySums(): ScoreSums {
  return { main: 0, hardBoost: 0, excluded: 0, weightedSum: 0, weightSum: 0, boostSum: 0 };
}

/** How a task score enters the sums: in pool main, in the hard boost, or counted as excluded. */
const MAIN = 0;
export const HARD = 1;
const UNSCORED = 2;
export type SumKind = typeof MAIN | typeof HARD | typeof UNSCORED;

export function kindOf(task: ScoredTask): SumKind {
  if (task.pool === 'main' && task.score !== null && task.weight !== null) return MAIN;
  return task.pool === 'hard_boost' && task.score !== null ? HARD : UNSCORED;
}

/**
 * Adds one task to the sums: `value` is the score in pool main (weighted by `weight`, x^(1/3)) and
 * the hard-boost contribution in the hard boost; an excluded task is only counted.
 */
export function addScore(sums: ScoreSums, kind: SumKind, value: number, weight: number): void {
  if (kind === MAIN) {
    sums.main += 1;
    sums.weightedSum += value * weight;
    sums.weightSum += weight;
  } else if (kind === HARD) {
    sums.hardBoost += 1;
    sums.boostSum += value;
  } else {
    sums.excluded += 1;
  }
}

/**
 * Adds pairs in order, each to `sums` and to its task's group sums: pair k adds `values[k]` as
 * `kinds[k]` with weight `weights[tasks[k]]`, to `groups[groupOf[tasks[k]]]` too unless that is -1.
 */
export function addScores(
  sums: ScoreSums,
  groups: readonly ScoreSums[],
  pairs: { tasks: Int32Array; kinds: Uint8Array; values: Float64Array },
  weights: Float64Array,
  groupOf: Int8Array,
): void {
  const { tasks, kinds, values } = pairs;
  for (let k = 0; k < tasks.length; k++) {
    const task = tasks[k] as number;
    const kind = kinds[k] as SumKind;
    const value = values[k] as number;
    const weight = weights[task] as number;
    addScore(sums, kind, value, weight);
    const group = groups[groupOf[task] as number];
    if (group) addScore(group, kind, value, weight);
  }
}

export function addTask(sums: ScoreSums, task: ScoredTask): void {
  const kind = kindOf(task);
  const score = task.score ?? 0;
  const value = kind === HARD ? (task.hardBoostContribution ?? Math.max(0, score)) : score;
  addScore(sums, kind, value, task.weight ?? 0);
}

/**
 * SPEC 5 from the sums: S_M, the x^(1/3)-weighted mean over pool main (0 when none); B_H, the
 * hard-boost sum over the number of main and hard tasks (0 when no hard task); S_R = S_M + B_H;
 * S_C = clamp(S_R, −4, 3); S_N = (2·S_C + 1)/7.
 *
 * SPEC 5 (choice): with no task in main or hard_boost every number is null. Nothing scored is
 * no score, not the S_N = 1/7 that the formulas would give for zeros.
 */
export function aggregateSums(sums: ScoreSums): MinerAggregate {
  const { main, hardBoost, excluded } = sums;
  const taskCounts = { main, hardBoost, excluded };
  if (main + hardBoost === 0) {
    return { normalizedScore: null, rawTotal: null, mainScore: null, hardBoost: null, taskCounts };
  }
  const mainScore = sums.weightSum > 0 ? sums.weightedSum / sums.weightSum : 0;
  const boost = hardBoost > 0 ? sums.boostSum / (main + hardBoost) : 0;
  const rawTotal = mainScore + boost;
  const normalizedScore = (2 * clamp(rawTotal, -4, 3) + 1) / 7;
  return { normalizedScore, rawTotal, mainScore, hardBoost: boost, taskCounts };
}

/**
 * SPEC 5 over one miner's task scores. Sums run in the order given: pass tasks sorted by id so
 * the result does not depend on input order.
 */
export function minerAggregate(tasks: readonly ScoredTask[]): MinerAggregate {
  const sums = emptySums();
  for (const task of tasks) addTask(sums, task);
  return aggregateSums(sums);
}
