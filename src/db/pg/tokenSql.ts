// src/db/tokenSql.ts for PostgreSQL: the core's token rule (src/scoring/tokenSums.ts) as SQL over
// the runs table, with the weights as float8 parameters ($wi, $wc, $wo are the placeholders
// given). The same operations in the same order as the SQLite form, so both engines compute the
// same doubles; `resolved` is a boolean here, and sum(bigint) is numeric, cast back to bigint
// (exact: the CHECKs keep every sum within 2^53 - 1, and a sum past it is refused).
const cached = 'coalesce(tokens_cached_input, 0)';

/** `entersTokenMean(run, w)` with the weights at the given placeholders, e.g. ('$2', '$3', '$4'). */
export function entersMeanSql(wi: string, wc: string, wo: string): string {
  const [i, c, o] = [wi, wc, wo].map((p) => `${p}::float8`) as [string, string, string];
  return `((kind = 'miner' OR resolved) AND tokens_input IS NOT NULL AND tokens_output IS NOT NULL
    AND tokens_input >= 0 AND tokens_output >= 0 AND ${cached} >= 0 AND ${i} >= 0 AND ${c} >= 0 AND ${o} >= 0
    AND ${i} * tokens_input + ${c} * ${cached} + ${o} * tokens_output > 0)`;
}

/** The aggregate columns of a group of runs: runs, resolved, token count, input, cached, output sums. */
export function tokenSumsSql(wi: string, wc: string, wo: string): string {
  const enters = entersMeanSql(wi, wc, wo);
  const when = (column: string) => `coalesce(sum(CASE WHEN ${enters} THEN ${column} ELSE 0 END), 0)::bigint`;
  return [
    'count(*)',
    'count(*) FILTER (WHERE resolved)',
    `count(*) FILTER (WHERE ${enters})`,
    when('tokens_input'),
    when(cached),
    when('tokens_output'),
  ].join(', ');
}

/** src/db/tokenSql.ts `sumsPassSql`: numeric sums here, exact whatever their size. */
export function sumsPassSql(wi: string, wc: string, wo: string, bound: number): string {
  const enters = entersMeanSql(wi, wc, wo);
  const sum = (column: string) => `sum(CASE WHEN ${enters} THEN ${column} ELSE 0 END)`;
  return `greatest(${sum('tokens_input')}, ${sum(cached)}, ${sum('tokens_output')}) > ${bound}`;
}
