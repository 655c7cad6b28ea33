// Keeps the per-(task, miner) and per-task baseline aggregates in step with the runs table.
// Called inside the write transaction that inserts or deletes the runs.
import type { Db } from './client.js';
import { emitWrite, pairKey } from './events.js';
import type { CriterionGrade, TokenWeights } from '../scoring/types.js';
import type { PairDelta } from './plan/aggregateDeltas.js';
import { criterionSums } from './plan/criterionSums.js';
import { MAX_EXACT, passesBound, tooLarge, tooLargeToCount, type SumOwner } from './plan/tokenSums.js';
import { sumsPassSql, tokenSumsSql, tokenWeightParams } from './tokenSql.js';

/**
 * True (1) when a stored token sum passed 2^53 - 1: SQLite keeps it exactly, but it would be read
 * back rounded, and every score built on it would be off. Compared in SQL, where it is exact.
 */
const OVERFLOW = `max(input_sum, cached_sum, output_sum) > ${MAX_EXACT} AS overflow`;
/** The RETURNING column alone: 1 when a sum passed the bound. */
const overflows = (flag: unknown) => flag === 1;

export function aggregateWriter(db: Db) {
  const c = db.$client;
  // Positional parameters: a batch runs these once per pair. A pair's sums that would pass the
  // bound leave its row as it was (the DO UPDATE's WHERE), which the statement's count of changed
  // rows tells; a new row's sums are the delta's own, checked before. A RETURNING flag cost the
  // main thread 0.3 to 0.5 ms more a 1,000-run batch (of some 15; docs/bench/README.md, 2026-12-07).
  const minerUpsert = c.prepare(
    `
    INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (competition_id, task_id, hotkey) DO UPDATE SET
      runs = runs + excluded.runs, resolved = resolved + excluded.resolved,
      token_count = token_count + excluded.token_count, input_sum = input_sum + excluded.input_sum,
      cached_sum = cached_sum + excluded.cached_sum, output_sum = output_sum + excluded.output_sum
    WHERE max(input_sum + excluded.input_sum, cached_sum + excluded.cached_sum, output_sum + excluded.output_sum)
      <= ${MAX_EXACT}`,
  );
  const minerPrune = c.prepare(
    'DELETE FROM miner_tasks WHERE competition_id = ? AND task_id = ? AND hotkey = ? AND runs <= 0',
  );
  const baselineUpdate = c
    .prepare(
      `
    UPDATE tasks SET baseline_runs = baseline_runs + ?, baseline_resolved = baseline_resolved + ?,
      baseline_token_count = baseline_token_count + ?, baseline_input_sum = baseline_input_sum + ?,
      baseline_cached_sum = baseline_cached_sum + ?, baseline_output_sum = baseline_output_sum + ?
    WHERE competition_id = ? AND id = ?
    RETURNING ${OVERFLOW.replace(/(input|cached|output)_sum/g, 'baseline_$1_sum')}`,
    )
    .pluck();

  /** Applies a batch's per-pair deltas (src/db/plan/aggregateDeltas.ts): one statement per pair. */
  function apply(pairs: ReadonlyMap<string, PairDelta>, sign: 1 | -1): void {
    for (const { d, runs, resolved, tokens: t } of pairs.values()) {
      if (d.kind === 'baseline') {
        const flag = baselineUpdate.get(
          runs,
          resolved,
          t.count,
          t.input,
          t.cached,
          t.output,
          d.competitionId,
          d.taskId,
        );
        if (overflows(flag)) throw tooLarge(d);
        emitWrite(db, { competitionId: d.competitionId, kind: 'tasks' });
      } else {
        if (passesBound(t)) throw tooLarge(d);
        const { changes } = minerUpsert.run(
          d.competitionId,
          d.taskId,
          d.minerHotkey,
          runs,
          resolved,
          t.count,
          t.input,
          t.cached,
          t.output,
        );
        if (changes === 0) throw tooLarge(d);
        if (sign < 0) minerPrune.run(d.competitionId, d.taskId, d.minerHotkey);
        emitWrite(db, { competitionId: d.competitionId, kind: 'pair', pair: pairKey(d.taskId, d.minerHotkey ?? '') });
      }
    }
  }

  return { apply };
}

/** SQL: the digest of the judge configuration in force in competition @id, NULL when none is set. */
export const judgeInForceSql = `(SELECT digest FROM judges WHERE competition_id = @id ORDER BY version DESC LIMIT 1)`;

/**
 * SQL: a run (of `runs` or `deleted_runs`, its columns unqualified) of competition @id is not stale
 * under the judge configuration `judge` (an SQL expression, NULL when none is set), SPEC 12: it
 * names that configuration, or it names none and is not a QnA run (SWE-bench runs never name one).
 * While none is set, the runs that name none. The one home of the rule on SQLite; in the process,
 * src/db/plan/runBatch.ts isStaleRun; on PostgreSQL, src/db/pg/aggregates.ts.
 */
export const judgedSql = (judge: string) => `(judge_digest IS ${judge} OR (judge_digest IS NULL AND task_id NOT IN (
    SELECT id FROM tasks WHERE competition_id = @id AND type = 'swe_atlas_qna')))`;

/**
 * Runs that count: not sent by a validator excluded from the competition (SPEC 10), and not stale
 * under the judge configuration in force (SPEC 12).
 */
export const countedSql = `(validator_id IS NULL OR validator_id NOT IN (
    SELECT validator_id FROM competition_validators WHERE competition_id = @id AND excluded = 1))
  AND ${judgedSql(judgeInForceSql)}`;

/**
 * Recomputes every aggregate of a competition from its runs, e.g. after its token weights change
 * (validity depends on them) or a validator is excluded or included again. The sums are the
 * core's rule as SQL (src/db/tokenSql.ts); runs of excluded validators are left out, exactly as
 * if they had never been sent.
 */
export function rebuildAggregates(db: Db, competitionId: string, w: TokenWeights): void {
  const c = db.$client;
  const params = { id: competitionId, ...tokenWeightParams(w) };
  c.prepare('DELETE FROM miner_tasks WHERE competition_id = @id').run({ id: competitionId });
  try {
    c.prepare(
      `
      INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
      SELECT competition_id, task_id, miner_hotkey, ${tokenSumsSql()}
      FROM runs WHERE competition_id = @id AND kind = 'miner' AND ${countedSql} GROUP BY task_id, miner_hotkey`,
    ).run(params);
    // Every task's baseline sums from one pass over the runs, grouped: runs carry no index by task,
    // and a subquery per task scanned them all for each (32 s at the reference size, the server
    // stopped meanwhile). A task with no counted baseline run is left at zero.
    c.prepare(
      `UPDATE tasks SET baseline_runs = 0, baseline_resolved = 0, baseline_token_count = 0, baseline_input_sum = 0,
        baseline_cached_sum = 0, baseline_output_sum = 0 WHERE competition_id = @id`,
    ).run({ id: competitionId });
    c.prepare(
      `
      WITH b (task_id, runs, resolved, token_count, input, cached, output) AS (
        SELECT task_id, ${tokenSumsSql()}
        FROM runs WHERE competition_id = @id AND kind = 'baseline' AND ${countedSql} GROUP BY task_id)
      UPDATE tasks SET (baseline_runs, baseline_resolved, baseline_token_count, baseline_input_sum,
        baseline_cached_sum, baseline_output_sum) = (b.runs, b.resolved, b.token_count, b.input, b.cached, b.output)
      FROM b WHERE tasks.competition_id = @id AND tasks.id = b.task_id`,
    ).run(params);
  } catch (e) {
    // A sum past 2^63: SQLite's sum() refuses it. The first such group, named (throws).
    if ((e as Error).message === 'integer overflow') refuseOversized(db, params);
    throw e;
  }
  // A sum past 2^53 - 1 is stored exactly, as an integer, but could not be read back exactly: looked
  // for in the sums just written (a read of the aggregates, not another scan of every run), and
  // refused with the first such group named; the caller's transaction rolls the rebuild back.
  const oversizedStored = c.prepare(
    `SELECT 1 FROM miner_tasks WHERE competition_id = @id AND max(input_sum, cached_sum, output_sum) > ${MAX_EXACT}
    UNION ALL SELECT 1 FROM tasks WHERE competition_id = @id
      AND max(baseline_input_sum, baseline_cached_sum, baseline_output_sum) > ${MAX_EXACT} LIMIT 1`,
  );
  if (oversizedStored.get({ id: competitionId })) {
    refuseOversized(db, params);
    throw new Error('a token sum passed 2^53 - 1 that refuseOversized did not name');
  }
  emitWrite(db, { competitionId, kind: 'rebuild' });
  rebuildCriterionStats(db, competitionId);
  rebuildMiners(db, competitionId);
}

/**
 * Refuses a rebuild whose counted runs would make a token sum pass 2^53 - 1: the batches never let
 * one through, but the runs of an excluded validator were left out of the sums they checked, and
 * new weights can let runs enter the sums that did not before. The first such group, baseline
 * before miners, then task id and hotkey in byte order (as on PostgreSQL).
 */
function refuseOversized(db: Db, params: Record<string, unknown>): void {
  const row = db.$client
    .prepare(
      `SELECT kind, task_id, miner_hotkey FROM runs WHERE competition_id = @id AND ${countedSql}
      GROUP BY kind, task_id, miner_hotkey HAVING ${sumsPassSql(Number.MAX_SAFE_INTEGER)}
      ORDER BY kind, task_id, miner_hotkey LIMIT 1`,
    )
    .raw()
    .get(params) as [SumOwner['kind'], string, string | null] | undefined;
  if (row) throw tooLargeToCount({ kind: row[0], taskId: row[1], minerHotkey: row[2] });
}

/**
 * The miners a competition knows: those with a counted run, stored or deleted (a deletion keeps
 * its miner known, as it always has), and those whose standing the admin set (in the audit log).
 * A miner known only through an excluded validator's runs is dropped, as if never sent.
 */
function rebuildMiners(db: Db, competitionId: string): void {
  const c = db.$client;
  // The miners of counted stored runs are those of miner_tasks, rebuilt just before from them: a
  // read of that table, not two more scans of every run.
  const counted = `SELECT hotkey AS miner_hotkey FROM miner_tasks WHERE competition_id = @id
    UNION SELECT miner_hotkey FROM deleted_runs WHERE competition_id = @id AND kind = 'miner' AND ${countedSql}`;
  c.prepare(
    `DELETE FROM miners WHERE competition_id = @id AND excluded = 0 AND reason IS NULL
    AND hotkey NOT IN (${counted})
    AND hotkey NOT IN (SELECT target FROM audit_log WHERE competition_id = @id AND action IN ('miner.exclude', 'miner.include'))`,
  ).run({ id: competitionId });
  c.prepare(`INSERT OR IGNORE INTO miners (competition_id, hotkey) SELECT @id, miner_hotkey FROM (${counted})`).run({
    id: competitionId,
  });
}

/** Recomputes the per-criterion graded, met and split counts from the counted runs' gradings. */
function rebuildCriterionStats(db: Db, competitionId: string): void {
  const c = db.$client;
  const rows = c
    .prepare(`SELECT task_id, grading FROM runs WHERE competition_id = @id AND grading IS NOT NULL AND ${countedSql}`)
    .raw()
    .iterate({ id: competitionId }) as IterableIterator<[string, string]>;
  const sums = criterionSums(
    (function* () {
      for (const [taskId, grading] of rows) yield { taskId, criteria: JSON.parse(grading) as CriterionGrade[] };
    })(),
  );
  c.prepare('UPDATE task_criteria SET graded = 0, met = 0, split = 0 WHERE competition_id = ?').run(competitionId);
  const set = c.prepare(`UPDATE task_criteria SET graded = @graded, met = @met, split = @split
    WHERE competition_id = @competitionId AND task_id = @taskId AND id = @id`);
  for (const s of sums) set.run({ ...s, competitionId });
}
