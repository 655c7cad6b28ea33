import type { TokenCounts, TokenWeights } from './types.js';
import { isValidTokens, weightedTokens } from './weightedTokens.js';

/**
 * Exact sums of the raw counts of the runs that enter a token mean (SPEC 3), and how many runs
 * that is. Raw counts are integers, so these sums are exact under any order of adds and
 * removes; a mean is weighted once, at read time (`weightedSum`), never accumulated as floats.
 */
export interface TokenSums {
  count: number;
  input: number;
  cached: number;
  output: number;
}

/** What the contribution rule reads of a run. */
export interface TokenRun {
  kind: 'baseline' | 'miner';
  resolved: boolean;
  tokens: TokenCounts | null | undefined;
}

export const emptyTokenSums = (): TokenSums => ({ count: 0, input: 0, cached: 0, output: 0 });

/**
 * SPEC 3 with SPEC 2's validity: T_A averages every miner run, T_B only resolved baseline runs,
 * and a run enters either mean only when its weighted count is valid (not null, above 0).
 */
export function entersTokenMean(run: TokenRun, w: TokenWeights): boolean {
  return (run.kind === 'miner' || run.resolved) && isValidTokens(weightedTokens(run.tokens, w));
}

/** Adds (sign 1) or takes out (sign -1) a run's raw counts when it enters the mean. */
export function addRunTokens(sums: TokenSums, run: TokenRun, w: TokenWeights, sign: 1 | -1 = 1): void {
  if (!run.tokens || !entersTokenMean(run, w)) return;
  sums.count += sign;
  sums.input += sign * (run.tokens.input ?? 0);
  sums.cached += sign * (run.tokens.cachedInput ?? 0);
  sums.output += sign * (run.tokens.output ?? 0);
}

/**
 * The weighted total of summed counts: SPEC 2's formula applied once to the sums, with the same
 * float operations as `weightedTokens`, so every reader of the sums gets the same bits.
 */
export function weightedSum(sums: TokenSums, w: TokenWeights): number {
  return weightedTokens({ input: sums.input, cachedInput: sums.cached, output: sums.output }, w) ?? 0;
}
