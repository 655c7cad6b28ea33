import { combinations } from './combinations.js';

/** SPEC 6 static weight of a layer by its subset size. */
export const LAYER_WEIGHTS: Readonly<Record<number, number>> = Object.freeze({ 3: 0.25, 2: 0.45, 1: 0.3 });

/** The element that stands for the whole competition when no group is present (SPEC 6). */
export const OVERALL = 'overall';

export interface LayerPlan {
  subsetSize: number;
  layerWeight: number;
  elementWeight: number;
  subsets: string[][];
}

/**
 * SPEC 6 layers over the groups present (given in the fixed order short, medium, long): for k
 * from the number of groups down to 1, every k-combination; layer weights renormalized over the
 * layers that exist; each element worth its layer's weight over the layer's element count.
 *
 * SPEC 6 (choice): with no group present there is one layer with the single element `overall`,
 * so an unlabeled competition still pays its winner instead of burning everything.
 */
export function layers(groups: readonly string[]): LayerPlan[] {
  if (groups.length === 0) {
    return [{ subsetSize: 1, layerWeight: 1, elementWeight: 1, subsets: [[OVERALL]] }];
  }
  let total = 0;
  for (let k = groups.length; k >= 1; k--) total += LAYER_WEIGHTS[k] ?? 0;
  const plans: LayerPlan[] = [];
  for (let k = groups.length; k >= 1; k--) {
    const subsets = combinations(groups, k);
    const layerWeight = total > 0 ? (LAYER_WEIGHTS[k] ?? 0) / total : 0;
    plans.push({ subsetSize: k, layerWeight, elementWeight: layerWeight / subsets.length, subsets });
  }
  return plans;
}
