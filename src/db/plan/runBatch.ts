// What a batch of runs (sign 1) or a deletion (sign -1) changes besides the runs table: which runs
// count, the miners they make known, each task's run count, the criterion counts and the
// aggregates' per-pair deltas. Both engines run the statements this plan names.
import type { TokenWeights } from '../../scoring/types.js';
import type { RunRecord } from '../rows.js';
import { aggregateDeltas, type PairDelta } from './aggregateDeltas.js';
import { criterionSums, type CriterionDelta } from './criterionSums.js';

/**
 * The judge configuration in force (SPEC 12) as the stale rule needs it: its digest (null: none is
 * set), and which of the runs' tasks are QnA tasks (only needed while one is set).
 */
export interface JudgeInForce {
  digest: string | null;
  qnaTasks: ReadonlySet<string>;
}

/**
 * True when a run is stale (SPEC 12): it names a judge configuration other than the one in force,
 * or, while one is in force, it is a QnA run that names none (sent before any was set). SWE-bench
 * runs never name one and are never stale. The same rule in SQL: src/db/aggregates.ts judgedSql
 * (src/db/pg/aggregates.ts on PostgreSQL).
 */
export function isStaleRun(r: { taskId: string; judgeDigest?: string | null }, judge: JudgeInForce | null): boolean {
  const inForce = judge?.digest ?? null;
  const digest = r.judgeDigest ?? null;
  if (digest !== null) return digest !== inForce;
  return inForce !== null && judge!.qnaTasks.has(r.taskId);
}

/**
 * True when the run enters no aggregate: its validator is excluded (SPEC 10), or it is stale under
 * `judge`, the configuration in force (SPEC 12).
 */
export const isExcludedRun = (r: RunRecord, excluded: ReadonlySet<string>, judge: JudgeInForce | null) =>
  (r.validatorId !== null && excluded.has(r.validatorId)) || isStaleRun(r, judge);

export interface RunChangePlan {
  /** The runs that enter the aggregates. */
  counted: RunRecord[];
  /**
   * How many runs enter none (an excluded validator's, or stale): stored or deleted all the same,
   * so the engines tell it (a `runs` write event, src/db/events.ts) for what reads stored runs.
   */
  uncounted: number;
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
  judge: JudgeInForce | null,
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
    uncounted: records.length - counted.length,
    miners: [...miners],
    perTask,
    criteria: criterionSums(counted, sign),
    pairs: aggregateDeltas(counted, w, sign),
  };
}
