/** The subnet limits an operator may record with a metagraph (SPEC 11). */
export interface WeightLimitSettings {
  /** The largest share one uid may hold, a fraction of the vector's sum (`max_weight_limit` / 65535). */
  maxWeightLimit?: number | null;
  /** The fewest uids the vector must name (`min_allowed_weights`). */
  minAllowedWeights?: number | null;
}

export interface WeightLimits {
  maxWeightLimitMet: boolean | null;
  minAllowedWeightsMet: boolean | null;
}

/**
 * Whether an integer vector respects the recorded limits, as the chain checks them: the largest
 * integer over their sum at most `maxWeightLimit` (an empty vector holds no share); at least
 * `minAllowedWeights` uids, or every neuron of the subnet when it has fewer (`subnetSize`). A limit
 * not recorded is null; none recorded, null. Nothing is changed: the vector is what it is.
 */
export function weightLimits(
  weights: readonly number[],
  subnetSize: number,
  limits: WeightLimitSettings,
): WeightLimits | null {
  const { maxWeightLimit, minAllowedWeights } = limits;
  if ((maxWeightLimit ?? null) === null && (minAllowedWeights ?? null) === null) return null;
  let sum = 0;
  let max = 0;
  for (const w of weights) {
    sum += w;
    if (w > max) max = w;
  }
  return {
    maxWeightLimitMet: maxWeightLimit == null ? null : sum === 0 || max / sum <= maxWeightLimit,
    minAllowedWeightsMet: minAllowedWeights == null ? null : weights.length >= Math.min(minAllowedWeights, subnetSize),
  };
}
