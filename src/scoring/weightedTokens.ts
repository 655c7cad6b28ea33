import type { TokenCounts, TokenWeights } from './types.js';

/** SPEC 2 default weights: cached input is cheap, output is dear. */
export const DEFAULT_TOKEN_WEIGHTS: Readonly<TokenWeights> = Object.freeze({
  input: 1,
  cachedInput: 0.1,
  output: 3,
});

function isCount(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * SPEC 2: T = wi·Ti + wc·Tc + wo·To. Input and output are required and a missing cached count
 * is 0; a missing required count, a negative or non-finite count, or an invalid weight makes T
 * null, so a broken report can never pass for a cheap run.
 */
export function weightedTokens(
  counts: TokenCounts | null | undefined,
  weights: TokenWeights = DEFAULT_TOKEN_WEIGHTS,
): number | null {
  if (counts == null) return null;
  const { input, output } = counts;
  const cached = counts.cachedInput ?? 0;
  if (!isCount(input) || !isCount(output) || !isCount(cached)) return null;
  if (!isCount(weights.input) || !isCount(weights.cachedInput) || !isCount(weights.output)) {
    return null;
  }
  return weights.input * input + weights.cachedInput * cached + weights.output * output;
}

/**
 * SPEC 2 (choice): only a count above 0 enters an average. A crashed run that reports 0 tokens
 * must not halve a miner's mean and so buy it a better compression ratio.
 */
export function isValidTokens(tokens: number | null | undefined): tokens is number {
  return typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0;
}
