// The scoring core's token rule (src/scoring/tokenSums.ts) as SQL over the runs table, for the
// one place that recomputes aggregates in the database: rebuildAggregates. The weights are
// parameters (@wi, @wc, @wo; see `tokenWeightParams`); test/db/tokenSql.test.ts checks on
// random runs that this SQL and the core give the same sums.
import type { TokenWeights } from '../scoring/types.js';

export const tokenWeightParams = (w: TokenWeights) => ({ wi: w.input, wc: w.cachedInput, wo: w.output });

const cached = 'coalesce(tokens_cached_input, 0)';

/**
 * `weightedTokens(tokens, w)` is valid (SPEC 2): both required counts present, no count and no
 * weight negative, and the weighted total above 0. Operations in the core's order.
 */
const validSql = `(tokens_input IS NOT NULL AND tokens_output IS NOT NULL
  AND tokens_input >= 0 AND tokens_output >= 0 AND ${cached} >= 0 AND @wi >= 0 AND @wc >= 0 AND @wo >= 0
  AND @wi * tokens_input + @wc * ${cached} + @wo * tokens_output > 0)`;

/** `entersTokenMean(run, w)`: a miner run, or a resolved baseline run, with a valid count. */
export const entersMeanSql = `((kind = 'miner' OR resolved = 1) AND ${validSql})`;

/**
 * The aggregate columns of a group of runs, in the order runs, resolved, token count, input sum,
 * cached sum, output sum: `TokenSums` of the runs that enter the mean (0 for an empty group).
 */
export function tokenSumsSql(): string {
  const when = (column: string) => `coalesce(sum(CASE WHEN ${entersMeanSql} THEN ${column} ELSE 0 END), 0)`;
  return [
    'count(*)',
    'coalesce(sum(resolved), 0)',
    `coalesce(sum(${entersMeanSql}), 0)`,
    when('tokens_input'),
    when(cached),
    when('tokens_output'),
  ].join(', ');
}

/**
 * True for a group of runs whose entering token sums pass `bound` (2^53 - 1 or below): a rebuild
 * that would store one is refused (src/db/aggregates.ts). `total()` sums in doubles, without
 * sum()'s error past 2^63, and decides exactly: the counts are non-negative integers, so while a
 * sum stays within the bound every partial sum is an exact double, and rounding never takes one
 * that passed it back under.
 */
export function sumsPassSql(bound: number): string {
  const sum = (column: string) => `total(CASE WHEN ${entersMeanSql} THEN ${column} ELSE 0 END)`;
  return `max(${sum('tokens_input')}, ${sum(cached)}, ${sum('tokens_output')}) > ${bound}`;
}
