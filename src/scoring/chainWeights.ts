import { ascending } from './ascending.js';
import { emitWeights } from './emitWeights.js';

/** One registered neuron of a recorded metagraph (SPEC 11). */
export interface ChainNeuron {
  uid: number;
  hotkey: string;
}

export interface ChainWeights {
  /** One float per uid that receives weight, ascending by uid. */
  floats: Map<number, number>;
  /** The integer vector: uids ascending, each with its u16 weight (`emitWeights`). */
  uids: number[];
  weights: number[];
  /** Miners whose hotkey is not registered, by hotkey, with the weight that is burned for them. */
  unregistered: { hotkey: string; weight: number }[];
}

/**
 * SPEC 11 weights on chain from the final weights (SPEC 6). A registered miner's INC goes to its
 * uid; an unregistered miner's INC is burned. What is burned (the burn weight and those INCs) goes
 * to `burnUid`, added to what a miner registered there earned. Uids that receive nothing are left
 * out. Sums run in hotkey order, so the same weights give the same bits wherever computed.
 */
export function chainWeights(
  finalWeights: Readonly<Record<string, number>>,
  burnWeight: number,
  neurons: readonly ChainNeuron[],
  burnUid: number,
): ChainWeights {
  const uidOf = new Map(neurons.map((n) => [n.hotkey, n.uid]));
  const paid = new Map<number, number>();
  const unregistered: ChainWeights['unregistered'] = [];
  let burned = burnWeight;
  for (const hotkey of Object.keys(finalWeights).sort(ascending)) {
    const weight = finalWeights[hotkey]!;
    const uid = uidOf.get(hotkey);
    if (uid === undefined) {
      unregistered.push({ hotkey, weight });
      burned += weight;
    } else if (weight > 0) paid.set(uid, weight);
  }
  if (burned > 0) paid.set(burnUid, (paid.get(burnUid) ?? 0) + burned);
  const floats = new Map([...paid].sort(([a], [b]) => a - b));
  return { floats, ...emitWeights(floats), unregistered };
}
