// src/db/aggregates.ts on PostgreSQL: the per-(task, miner) and baseline aggregates kept in step
// with the runs inside the write transaction, and their rebuild.
//
// A batch's deltas go in one statement per table (unnest), not one per pair. A token sum that
// would pass 2^53 - 1 must give SQLite's 422, naming the first such pair in SQLite's order, and
// store nothing: the upserts skip (WHERE on DO UPDATE) the rows whose new sums would pass the
// bound instead of letting the CHECK fail the statement, and a pair missing from what they return
// is one that would have overflowed. The caller's transaction then rolls everything back.
import type { TokenWeights } from '../../scoring/types.js';
import { pairKey } from '../events.js';
import { deltaKey, type PairDelta } from '../plan/aggregateDeltas.js';
import { MAX_EXACT, passesBound, tooLarge, tooLargeToCount, type SumOwner } from '../plan/tokenSums.js';
import type { PgContext } from './context.js';
import { sumsPassSql, tokenSumsSql } from './tokenSql.js';

/** SQL: each of the three stored sums plus its delta stays within 2^53 - 1 (`col(c)` names a delta). */
const fits = (stored: (c: string) => string, delta: (c: string) => string) =>
  ['input', 'cached', 'output'].map((c) => `${stored(c)} + ${delta(c)} <= ${MAX_EXACT}`).join(' AND ');

export const MINER_UPSERT = `
  INSERT INTO miner_tasks AS m (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
  SELECT $1, u.task_id, u.hotkey, u.runs, u.resolved, u.token_count, u.input, u.cached, u.output
  FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::int8[], $8::int8[], $9::int8[])
    AS u(task_id, hotkey, runs, resolved, token_count, input, cached, output)
  ON CONFLICT (competition_id, hotkey, task_id) DO UPDATE SET
    runs = m.runs + excluded.runs, resolved = m.resolved + excluded.resolved,
    token_count = m.token_count + excluded.token_count, input_sum = m.input_sum + excluded.input_sum,
    cached_sum = m.cached_sum + excluded.cached_sum, output_sum = m.output_sum + excluded.output_sum
  WHERE ${fits(
    (c) => `m.${c}_sum`,
    (c) => `excluded.${c}_sum`,
  )}
  RETURNING task_id, hotkey`;

// Taking runs out: an UPDATE, not the upsert, whose proposed row would carry negative sums and
// fail the CHECK before the conflict is even found. A pair with no row gets none, as SQLite's
// upsert and prune leave none.
const MINER_SUBTRACT = `
  UPDATE miner_tasks m SET runs = m.runs + u.runs, resolved = m.resolved + u.resolved,
    token_count = m.token_count + u.token_count, input_sum = m.input_sum + u.input,
    cached_sum = m.cached_sum + u.cached, output_sum = m.output_sum + u.output
  FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::int8[], $8::int8[], $9::int8[])
    AS u(task_id, hotkey, runs, resolved, token_count, input, cached, output)
  WHERE m.competition_id = $1 AND m.task_id = u.task_id AND m.hotkey = u.hotkey`;

export const BASELINE_UPDATE = `
  UPDATE tasks t SET baseline_runs = t.baseline_runs + u.runs, baseline_resolved = t.baseline_resolved + u.resolved,
    baseline_token_count = t.baseline_token_count + u.token_count, baseline_input_sum = t.baseline_input_sum + u.input,
    baseline_cached_sum = t.baseline_cached_sum + u.cached, baseline_output_sum = t.baseline_output_sum + u.output
  FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::int8[], $7::int8[], $8::int8[])
    AS u(task_id, runs, resolved, token_count, input, cached, output)
  WHERE t.competition_id = $1 AND t.id = u.task_id AND ${fits(
    (c) => `t.baseline_${c}_sum`,
    (c) => `u.${c}`,
  )}
  RETURNING t.id`;

const MINER_PRUNE = 'DELETE FROM miner_tasks WHERE competition_id = $1 AND task_id = $2 AND hotkey = $3 AND runs <= 0';

/** A batch's deltas by table; `skipped`: some delta passes the bound already and is not sent. */
export function splitDeltas(sums: ReadonlyMap<string, PairDelta>): {
  miner: PairDelta[];
  baseline: PairDelta[];
  skipped: boolean;
} {
  const baseline: PairDelta[] = [];
  const miner: PairDelta[] = [];
  let skipped = false;
  for (const s of sums.values()) {
    // A delta past the bound already overflows (stored sums are >= 0), and could not be sent exactly.
    if (passesBound(s.tokens)) skipped = true;
    else (s.d.kind === 'baseline' ? baseline : miner).push(s);
  }
  return { miner, baseline, skipped };
}

/** The six delta columns of a list, as arrays in its order. */
export const deltaColumns = (list: PairDelta[]) => [
  list.map((s) => s.runs),
  list.map((s) => s.resolved),
  list.map((s) => s.tokens.count),
  list.map((s) => s.tokens.input),
  list.map((s) => s.tokens.cached),
  list.map((s) => s.tokens.output),
];

/**
 * After the deltas were written (`stored`: the keys, deltaKey, of the pairs written): the 422 for the first
 * pair in SQLite's order that was not (adding only), then the same events in the same order as
 * SQLite; removing, a pair left with no runs is pruned.
 */
export async function settleAggregates(
  ctx: PgContext,
  sums: ReadonlyMap<string, PairDelta>,
  stored: ReadonlySet<string>,
  sign: 1 | -1,
): Promise<void> {
  // SQLite's order: the first pair (in batch order) whose sums would pass the bound is the error.
  // Taking runs out only lowers the sums.
  if (sign > 0) {
    for (const [key, s] of sums) {
      if (!stored.has(key)) throw tooLarge(s.d);
    }
  }
  for (const { d } of sums.values()) {
    if (d.kind === 'baseline') ctx.emit({ competitionId: d.competitionId, kind: 'tasks' });
    else {
      if (sign < 0) await ctx.execute(MINER_PRUNE, [d.competitionId, d.taskId, d.minerHotkey]);
      ctx.emit({ competitionId: d.competitionId, kind: 'pair', pair: pairKey(d.taskId, d.minerHotkey ?? '') });
    }
  }
}

/**
 * Applies a batch's per-pair deltas (src/db/plan/aggregateDeltas.ts), adding (sign 1) or removing
 * (sign -1); tells the same events in the same order as SQLite. Pairs of one competition.
 */
export async function applyAggregates(
  ctx: PgContext,
  sums: ReadonlyMap<string, PairDelta>,
  sign: 1 | -1,
): Promise<void> {
  const first = sums.values().next();
  if (first.done) return;
  const competitionId = first.value.d.competitionId;
  const { miner, baseline } = splitDeltas(sums);
  const stored = new Set<string>();
  if (miner.length > 0) {
    const params = [
      competitionId,
      miner.map((s) => s.d.taskId),
      miner.map((s) => s.d.minerHotkey),
      ...deltaColumns(miner),
    ];
    if (sign > 0) {
      const rows = await ctx.query<[string, string]>(MINER_UPSERT, params, {
        array: true,
        name: 'pg_aggregates_miner_upsert',
      });
      for (const [taskId, hotkey] of rows) stored.add(deltaKey({ kind: 'miner', taskId, minerHotkey: hotkey }));
    } else {
      await ctx.execute(MINER_SUBTRACT, params, { name: 'pg_aggregates_miner_subtract' });
    }
  }
  if (baseline.length > 0) {
    const rows = await ctx.query<[string]>(
      BASELINE_UPDATE,
      [competitionId, baseline.map((s) => s.d.taskId), ...deltaColumns(baseline)],
      { array: true, name: 'pg_aggregates_baseline_update' },
    );
    for (const [taskId] of rows) stored.add(deltaKey({ kind: 'baseline', taskId, minerHotkey: null }));
  }
  await settleAggregates(ctx, sums, stored, sign);
}

/** src/db/aggregates.ts judgeInForceSql: the digest in force in competition $1, NULL when none is set. */
export const judgeInForceSql = `(SELECT digest FROM judges WHERE competition_id = $1 ORDER BY version DESC LIMIT 1)`;

/**
 * src/db/aggregates.ts judgedSql, the one home of the rule on PostgreSQL: a run of competition $1
 * is not stale under `judge` (SPEC 12): it names that configuration, or names none and is not a QnA run.
 */
export const judgedSql = (judge: string) => `(judge_digest IS NOT DISTINCT FROM ${judge}
  OR (judge_digest IS NULL AND task_id NOT IN (
    SELECT id FROM tasks WHERE competition_id = $1 AND type = 'swe_atlas_qna')))`;

/** Runs that count: not sent by a validator excluded from the competition ($1), and not stale (SPEC 12). */
export const countedSql = `(validator_id IS NULL OR validator_id NOT IN (
    SELECT validator_id FROM competition_validators WHERE competition_id = $1 AND excluded))
  AND ${judgedSql(judgeInForceSql)}`;

/** src/db/aggregates.ts rebuildAggregates: every aggregate of a competition from its counted runs. */
export async function rebuildAggregates(ctx: PgContext, competitionId: string, w: TokenWeights): Promise<void> {
  const sums = tokenSumsSql('$2', '$3', '$4');
  const params = [competitionId, w.input, w.cachedInput, w.output];
  // src/db/aggregates.ts refuseOversized: the same first group, the same 422, before the CHECKs
  // would refuse the statement with no name.
  const [oversized] = await ctx.query<{ kind: SumOwner['kind']; task_id: string; miner_hotkey: string | null }>(
    `SELECT kind, task_id, miner_hotkey FROM runs WHERE competition_id = $1 AND ${countedSql}
    GROUP BY kind, task_id, miner_hotkey HAVING ${sumsPassSql('$2', '$3', '$4', MAX_EXACT)}
    ORDER BY kind COLLATE "C", task_id COLLATE "C", miner_hotkey COLLATE "C" LIMIT 1`,
    params,
  );
  if (oversized)
    throw tooLargeToCount({ kind: oversized.kind, taskId: oversized.task_id, minerHotkey: oversized.miner_hotkey });
  ctx.emit({ competitionId, kind: 'rebuild' });
  await ctx.execute('DELETE FROM miner_tasks WHERE competition_id = $1', [competitionId]);
  await ctx.execute(
    `INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
    SELECT competition_id, task_id, miner_hotkey, ${sums}
    FROM runs WHERE competition_id = $1 AND kind = 'miner' AND ${countedSql}
    GROUP BY competition_id, task_id, miner_hotkey`,
    params,
  );
  // One grouped pass over the runs, not a subquery per task (src/db/aggregates.ts says why).
  await ctx.execute(
    `UPDATE tasks SET baseline_runs = 0, baseline_resolved = 0, baseline_token_count = 0, baseline_input_sum = 0,
      baseline_cached_sum = 0, baseline_output_sum = 0 WHERE competition_id = $1`,
    [competitionId],
  );
  await ctx.execute(
    `UPDATE tasks t SET (baseline_runs, baseline_resolved, baseline_token_count, baseline_input_sum,
      baseline_cached_sum, baseline_output_sum) = (b.runs, b.resolved, b.token_count, b.input, b.cached, b.output)
    FROM (
      SELECT task_id, ${sums}
      FROM runs WHERE competition_id = $1 AND kind = 'baseline' AND ${countedSql} GROUP BY task_id
    ) AS b (task_id, runs, resolved, token_count, input, cached, output)
    WHERE t.competition_id = $1 AND t.id = b.task_id`,
    params,
  );
  await rebuildCriterionStats(ctx, competitionId);
  await rebuildMiners(ctx, competitionId);
}

/**
 * The per-criterion graded, met and split counts from the counted runs' gradings. The gradings
 * are JSON text (JSON.stringify of CriterionGrade[], `met` and `split` booleans); read here in SQL
 * rather than shipped to the process.
 */
async function rebuildCriterionStats(ctx: PgContext, competitionId: string): Promise<void> {
  await ctx.execute('UPDATE task_criteria SET graded = 0, met = 0, split = 0 WHERE competition_id = $1', [
    competitionId,
  ]);
  await ctx.execute(
    `UPDATE task_criteria t SET graded = s.graded, met = s.met, split = s.split
    FROM (
      SELECT r.task_id, g->>'criterionId' AS id, count(*) AS graded,
        count(*) FILTER (WHERE g->'met' = 'true'::jsonb) AS met,
        count(*) FILTER (WHERE g->'split' = 'true'::jsonb) AS split
      FROM runs r CROSS JOIN jsonb_array_elements(r.grading::jsonb) g
      WHERE r.competition_id = $1 AND r.grading IS NOT NULL AND ${countedSql}
      GROUP BY r.task_id, g->>'criterionId'
    ) s
    WHERE t.competition_id = $1 AND t.task_id = s.task_id AND t.id = s.id`,
    [competitionId],
  );
}

/** src/db/aggregates.ts rebuildMiners: the miners a competition knows, from its counted runs and the audit log. */
async function rebuildMiners(ctx: PgContext, competitionId: string): Promise<void> {
  // Those of counted stored runs from miner_tasks, rebuilt just before (src/db/aggregates.ts).
  const counted = `SELECT hotkey AS miner_hotkey FROM miner_tasks WHERE competition_id = $1
    UNION SELECT miner_hotkey FROM deleted_runs WHERE competition_id = $1 AND kind = 'miner' AND ${countedSql}`;
  await ctx.execute(
    `DELETE FROM miners WHERE competition_id = $1 AND NOT excluded AND reason IS NULL
    AND hotkey NOT IN (${counted})
    AND hotkey NOT IN (SELECT target FROM audit_log WHERE competition_id = $1 AND action IN ('miner.exclude', 'miner.include'))`,
    [competitionId],
  );
  // SQLite's INSERT OR IGNORE also drops a NULL hotkey (NOT NULL); ON CONFLICT would not.
  await ctx.execute(
    `INSERT INTO miners (competition_id, hotkey) SELECT $1, miner_hotkey FROM (${counted}) k
    WHERE miner_hotkey IS NOT NULL ON CONFLICT DO NOTHING`,
    [competitionId],
  );
}
