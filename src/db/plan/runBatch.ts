// What a batch of runs (sign 1) or a deletion (sign -1) changes besides the runs table: which runs
// count, the miners they make known, each task's run count, the criterion counts and the
// aggregates' per-pair deltas. Both engines run the statements this plan names.
import type { TokenWeights } from '../../scoring/types.js';
import type { RunRecord } from '../rows.js';
import { aggregateDeltas, type PairDelta } from './aggregateDeltas.js';
import { criterionSums, type CriterionDelta } from './criterionSums.js';

/** True when a QnA run was graded under a judge configuration other than `judge`, the one in force. */
export const isStaleRun = (r: { judgeDigest?: string | null }, judge: string | null) =>
  (r.judgeDigest ?? null) !== null && r.judgeDigest !== judge;

/**
 * True when the run enters no aggregate: its validator is excluded (SPEC 10), or it was graded
 * under a judge configuration other than `judge`, the one in force (stale, SPEC 12).
 */
export const isExcludedRun = (r: RunRecord, excluded: ReadonlySet<string>, judge: string | null) =>
  (r.validatorId !== null && excluded.has(r.validatorId)) || isStaleRun(r, judge);

export interface RunChangePlan {
  /** The runs that enter the aggregates. */
  counted: RunRecord[];
  /** The miners the counted runs make known: an excluded validator's runs put no miner on the leaderboard. */
  miners: string[];
  /** Each task's change in stored runs (counted or not). */
  perTask: Map<string, number>;
  criteria: CriterionDelta[];
  /** The aggregates' deltas per pair (src/db/plan/aggregateDeltas.ts). */
  pairs: Map<string, PairDelta>;
}

/** Runs of one competition stored (sign 1) or deleted (sign -1). */
export function planRunChange(
  records: readonly RunRecord[],
  sign: 1 | -1,
  w: TokenWeights,
  excluded: ReadonlySet<string>,
  judge: string | null,
): RunChangePlan {
  // Loops, not filter and flatMap: a batch plans a thousand runs or more.
  const counted: RunRecord[] = [];
  const miners = new Set<string>();
  const perTask = new Map<string, number>();
  for (const r of records) {
    perTask.set(r.taskId, (perTask.get(r.taskId) ?? 0) + sign);
    if (isExcludedRun(r, excluded, judge)) continue;
    counted.push(r);
    if (r.minerHotkey !== null) miners.add(r.minerHotkey);
  }
  return {
    counted,
    miners: [...miners],
    perTask,
    criteria: criterionSums(counted, sign),
    pairs: aggregateDeltas(counted, w, sign),
  };
}
