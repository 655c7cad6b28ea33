/** The largest 16-bit integer: a weight on chain is a u16 (SPEC 11). */
export const U16_MAX = 65535;

/**
 * Rounds to the nearest integer, halves to the even one, as Python's `round` does on a float.
 * JavaScript's `Math.round` sends every half up: 2.5 would become 3 where the SDK sends 2.
 * `x − floor(x)` is exact for every double below 2^52, so a half is recognised exactly.
 */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest < 0.5) return floor;
  if (rest > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * SPEC 11 integer vector: `convert_weights_and_uids_for_emit` of the Bittensor SDK
 * (`bittensor/utils/weight_utils.py`). The uids ascending with their floats; every float 0 (or
 * none): an empty vector; else each float divided by the largest, times 65535 (in that order, in
 * doubles), rounded half to even, and every uid whose integer is 0 left out.
 */
export function emitWeights(floats: ReadonlyMap<number, number>): { uids: number[]; weights: number[] } {
  const sorted = [...floats].sort(([a], [b]) => a - b);
  let max = 0;
  for (const [, w] of sorted) if (w > max) max = w;
  const uids: number[] = [];
  const weights: number[] = [];
  if (max === 0) return { uids, weights };
  for (const [uid, w] of sorted) {
    const value = roundHalfEven((w / max) * U16_MAX);
    if (value === 0) continue;
    uids.push(uid);
    weights.push(value);
  }
  return { uids, weights };
}
