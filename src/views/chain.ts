// The body of GET …/weights/chain (SPEC 11, API 1.2), built from the weights and a metagraph.
// Pure: the live read, snapshots and offline scoring (`score`, `verify`) build it here, so the same
// weights and metagraph give the same bytes wherever they are computed.
import { chainWeights } from '../scoring/chainWeights.js';
import { registeredMiners } from '../scoring/coverage.js';
import { weightLimits } from '../scoring/weightLimits.js';
import type { Stage } from '../scoring/types.js';
import type { Metagraph } from '../snapshots/metagraph.js';

export interface ChainSource {
  competitionId: string;
  stages: Stage[];
  /** The final weights and burn weight (SPEC 6), as the weights read gives them. */
  weights: { finalWeights: Record<string, number>; burnWeight: number };
  /** Every miner the competition knows (the leaderboard's hotkeys). */
  miners: readonly string[];
}

export function chainBody(source: ChainSource, metagraph: Metagraph, digest: string) {
  const { neurons, burnUid } = metagraph;
  const w = chainWeights(source.weights.finalWeights, source.weights.burnWeight, neurons, burnUid);
  const known = new Set(source.miners);
  return {
    competitionId: source.competitionId,
    stages: source.stages,
    netuid: metagraph.netuid,
    block: metagraph.block,
    metagraphDigest: digest,
    versionKey: metagraph.versionKey,
    uids: w.uids,
    weights: w.weights,
    // Integer-like keys: JSON objects list them in ascending order.
    floats: Object.fromEntries([...w.floats].map(([uid, f]) => [String(uid), f])),
    burnUid,
    unregistered: w.unregistered,
    limits: weightLimits(w.weights, neurons.length, metagraph),
    awaitingRuns: registeredMiners(metagraph).filter((n) => !known.has(n.hotkey)),
  };
}

export type ChainBody = ReturnType<typeof chainBody>;
