// The per-pair deltas a run batch (or a deletion) makes to the aggregates: runs, resolved runs and
// token sums per (task, miner), and per task for the baseline. Summed per pair first, so a batch of
// 1,000 runs costs one row of the statement per pair, not per run; the pairs in the order their
// first run came, which is the order both engines tell the write events and look for a sum past
// the bound.
import { addRunTokens, emptyTokenSums, type TokenSums } from '../../scoring/tokenSums.js';
import type { TokenWeights } from '../../scoring/types.js';
import type { SumOwner } from './tokenSums.js';

/** What the aggregates read of a run (a RunRecord is one). */
export interface AggregatedRun extends SumOwner {
  competitionId: string;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
}

/** One pair's delta: `d` is its first run. */
export interface PairDelta {
  d: AggregatedRun;
  runs: number;
  resolved: number;
  tokens: TokenSums;
}

/** The key of a pair's delta: its kind, task and miner. */
export const deltaKey = (d: SumOwner) => `${d.kind}\u0000${d.taskId}\u0000${d.minerHotkey ?? ''}`;

/** Adds (sign 1) or takes out (sign -1) the runs' contributions, per pair, keyed by `deltaKey`. */
export function aggregateDeltas(runs: readonly AggregatedRun[], w: TokenWeights, sign: 1 | -1): Map<string, PairDelta> {
  const sums = new Map<string, PairDelta>();
  // Found by kind, task and miner in nested maps: a batch of 1,000 runs has about 200 pairs, and a
  // key string built for each run (then flattened to be hashed) was garbage that brought the young
  // generation's next collection sooner, each of which copies the batch in hand.
  const byPair = {
    baseline: new Map<string, Map<string, PairDelta>>(),
    miner: new Map<string, Map<string, PairDelta>>(),
  };
  for (const d of runs) {
    let byMiner = byPair[d.kind].get(d.taskId);
    if (!byMiner) byPair[d.kind].set(d.taskId, (byMiner = new Map<string, PairDelta>()));
    const hotkey = d.minerHotkey ?? '';
    let s = byMiner.get(hotkey);
    if (!s) {
      s = { d, runs: 0, resolved: 0, tokens: emptyTokenSums() };
      byMiner.set(hotkey, s);
      sums.set(deltaKey(d), s);
    }
    s.runs += sign;
    if (d.resolved) s.resolved += sign;
    addRunTokens(s.tokens, d, w, sign);
  }
  return sums;
}
