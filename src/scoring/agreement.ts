import { ascending } from './ascending.js';

/** One validator's runs on one (task, miner) pair; `hotkey` null for the task's baseline runs. */
export interface ValidatorPairRuns {
  taskId: string;
  hotkey: string | null;
  validatorId: string;
  runs: number;
  resolved: number;
}

export interface Agreement {
  sharedPairs: number;
  resolveRateDelta: number | null;
  flagged: boolean;
}

/** SPEC 10 defaults: a validator is flagged from this many shared pairs and this absolute delta. */
export const AGREEMENT_MIN_SHARED = 10;
export const AGREEMENT_MIN_DELTA = 0.2;
/**
 * The delta is a mean of differences of fractions, so a validator exactly at the threshold can
 * come out a rounding error below it (3/10 - 1/10 = 0.19999999999999998). As SPEC 5 does for equal
 * scores, values within 1e-12 of the threshold count as reaching it.
 */
const THRESHOLD_TOLERANCE = 1e-12;

/**
 * SPEC 10: for each validator, the mean over the pairs it shares with other counted validators of
 * its resolve rate minus theirs, pooled. An excluded validator is still compared with the others,
 * but is never one of the others. Validators come back in id order.
 */
export function agreement(rows: readonly ValidatorPairRuns[], excluded: ReadonlySet<string>): Map<string, Agreement> {
  const pairs = new Map<string, ValidatorPairRuns[]>();
  for (const row of rows) {
    if (row.runs <= 0) continue;
    const key = `${row.taskId}\u0000${row.hotkey ?? '\u0001baseline'}`;
    const list = pairs.get(key);
    if (list) list.push(row);
    else pairs.set(key, [row]);
  }
  const sums = new Map<string, { shared: number; delta: number }>();
  for (const row of rows) if (!sums.has(row.validatorId)) sums.set(row.validatorId, { shared: 0, delta: 0 });
  for (const list of pairs.values()) {
    let runs = 0;
    let resolved = 0;
    for (const r of list) {
      if (excluded.has(r.validatorId)) continue;
      runs += r.runs;
      resolved += r.resolved;
    }
    for (const r of list) {
      const counted = !excluded.has(r.validatorId);
      const otherRuns = counted ? runs - r.runs : runs;
      if (otherRuns <= 0) continue;
      const otherResolved = counted ? resolved - r.resolved : resolved;
      const s = sums.get(r.validatorId)!;
      s.shared += 1;
      s.delta += r.resolved / r.runs - otherResolved / otherRuns;
    }
  }
  const out = new Map<string, Agreement>();
  for (const id of [...sums.keys()].sort(ascending)) {
    const { shared, delta } = sums.get(id)!;
    const resolveRateDelta = shared > 0 ? delta / shared : null;
    const flagged =
      shared >= AGREEMENT_MIN_SHARED &&
      resolveRateDelta !== null &&
      Math.abs(resolveRateDelta) >= AGREEMENT_MIN_DELTA - THRESHOLD_TOLERANCE;
    out.set(id, { sharedPairs: shared, resolveRateDelta, flagged });
  }
  return out;
}
