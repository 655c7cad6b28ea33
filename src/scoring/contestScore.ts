import { OVERALL } from './layers.js';
import type { Complexity, Contestant } from './types.js';

/**
 * SPEC 6 contest score of a miner on one element: the plain mean of its group scores over the
 * element's groups, or S_N for the `overall` element. Null when it lacks any of them: a miner
 * competes only where it has scores.
 */
export function contestScore(miner: Contestant, subset: readonly string[]): number | null {
  if (subset.length === 1 && subset[0] === OVERALL) return miner.normalizedScore;
  if (subset.length === 0) return null;
  let sum = 0;
  for (const group of subset) {
    const g = miner.groupScores[group as Complexity];
    if (g === undefined) return null;
    sum += g;
  }
  return sum / subset.length;
}
