// src/db/runs.ts on PostgreSQL. A batch's runs go in as one INSERT ... SELECT FROM unnest
// (docs/POSTGRES.md: 1.5x the multi-row form, and no parameter cap), and each counter table takes
// one statement per batch, not one per task or pair. An insert sends all of them as one statement
// (INSERT_BATCH): it runs inside its competition's turn, where each round trip delays the next
// writer.
import type { TokenWeights } from '../../scoring/types.js';
import { fromRow, type RunFilter, type RunRecord, type RunRow, type StoredRun } from '../runs.js';
import { planRunChange, type JudgeInForce, type RunChangePlan } from '../plan/runBatch.js';
import { deltaKey } from '../plan/aggregateDeltas.js';
import type { SumOwner } from '../plan/tokenSums.js';
import type { PgContext } from './context.js';
import { jsonArrayLiteral, withArrayLiterals } from './arrayLiteral.js';
import { RUN_SEQUENCE } from './context.js';
import {
  applyAggregates,
  BASELINE_UPDATE,
  deltaColumns,
  MINER_UPSERT,
  settleAggregates,
  splitDeltas,
} from './aggregates.js';

/** The columns a batch writes, in the order of its arrays. */
export const RUN_COLUMNS = `competition_id, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved,
  tokens_input, tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, rubric_votes, grading,
  judge_digest, answer_date`;

// unnest yields the rows in array order, and the identity takes its numbers in that order: the
// batch's runs get increasing sequence numbers in the order sent, as on SQLite.
export const INSERT_RUNS = `INSERT INTO runs (${RUN_COLUMNS})
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
    $8::bool[], $9::int8[], $10::int8[], $11::int8[], $12::float8[], $13::int[], $14::text[], $15::text[],
    $16::text[], $17::text[])`;

const ADD_MINERS = `INSERT INTO miners (competition_id, hotkey) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`;

const TASK_RUN_COUNTS = `INSERT INTO task_run_counts AS n (runs, competition_id, task_id)
  SELECT u.runs, $1, u.task_id FROM unnest($2::int[], $3::text[]) AS u(runs, task_id)
  ON CONFLICT (competition_id, task_id) DO UPDATE SET runs = n.runs + excluded.runs`;

const CRITERION_STATS = `UPDATE task_criteria t SET graded = t.graded + u.graded, met = t.met + u.met, split = t.split + u.split
  FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[]) AS u(task_id, id, graded, met, split)
  WHERE t.competition_id = $1 AND t.task_id = u.task_id AND t.id = u.id`;

/**
 * A statement's parameters moved up by `by` to sit inside a larger one: all of them, or (`sharesFirst`)
 * all but $1, the competition id every part shares.
 */
const shifted = (sql: string, by: number, sharesFirst: boolean) =>
  sql.replace(/\$(\d+)/g, (_, n: string) => (sharesFirst && n === '1' ? '$1' : `$${Number(n) + by}`));

/**
 * A batch inserted in one statement, of the statements above and aggregates.ts's: the aggregates
 * first (the upsert and the baseline update, which skip a pair whose sums would pass 2^53 - 1),
 * then the runs only if every pair was written ($17: none was held back before sending), so a
 * refused batch takes no number from the run sequence; then the miners, the task counts and the
 * criterion counts. Each part writes a table of its own, so none needs to see another's rows.
 * Returns the pairs written, as aggregates.ts's statements do. Parameters: $1 the competition,
 * $2-$9 the upsert's, $10-$16 the baseline's, $17, $18-$34 the runs', $35 the miners, $36-$37 the
 * task counts, $38-$42 the criterion counts.
 */
const INSERT_BATCH = `WITH
  m AS (${MINER_UPSERT}),
  b AS (${shifted(BASELINE_UPDATE, 8, true)}),
  written AS (
    SELECT $17::bool AND (SELECT count(*) FROM m) = cardinality($2::text[])
      AND (SELECT count(*) FROM b) = cardinality($10::text[]) AS all_pairs),
  r AS (${shifted(INSERT_RUNS, 17, false)}
    WHERE (SELECT all_pairs FROM written)),
  n AS (${shifted(ADD_MINERS, 33, true)}),
  k AS (${shifted(TASK_RUN_COUNTS, 34, true)}),
  s AS (${shifted(CRITERION_STATS, 36, true)})
  SELECT 'miner', task_id, hotkey FROM m UNION ALL SELECT 'baseline', id, NULL FROM b`;

const KEEP_DELETED = `WITH gone AS (DELETE FROM runs WHERE competition_id = $1 AND run_id = $2 RETURNING *)
  INSERT INTO deleted_runs (seq, ${RUN_COLUMNS}, created_at, deleted_seq)
  SELECT seq, ${RUN_COLUMNS}, created_at, $3 FROM gone`;

export function pgRunsRepo(ctx: PgContext) {
  /**
   * Runs the statements a plan (src/db/plan/runBatch.ts) names but the aggregates' (applied first,
   * see insertMany) and the runs' own rows: one statement per table.
   */
  /** Runs that enter no aggregate still change what reads stored runs (src/db/events.ts, `runs`). */
  function tellUncounted(c: PgContext, competitionId: string, plan: RunChangePlan): void {
    if (plan.uncounted > 0) c.emit({ competitionId, kind: 'runs' });
  }

  async function applyPlan(c: PgContext, competitionId: string, plan: RunChangePlan): Promise<void> {
    tellUncounted(c, competitionId, plan);
    if (plan.miners.length > 0)
      await c.execute(ADD_MINERS, [competitionId, plan.miners], { name: 'pg_runs_add_miners' });
    await c.execute(TASK_RUN_COUNTS, [competitionId, [...plan.perTask.values()], [...plan.perTask.keys()]], {
      name: 'pg_runs_task_run_counts',
    });
    const list = plan.criteria;
    if (list.length === 0) return;
    await c.execute(
      CRITERION_STATS,
      [
        competitionId,
        list.map((s) => s.taskId),
        list.map((s) => s.id),
        list.map((s) => s.graded),
        list.map((s) => s.met),
        list.map((s) => s.split),
      ],
      { name: 'pg_runs_criterion_stats' },
    );
  }

  /** A batch's plan and INSERT_BATCH's parameters, array literals made (./arrayLiteral.ts): all of its JavaScript work. */
  function batchStatement(
    records: RunRecord[],
    w: TokenWeights,
    excluded: ReadonlySet<string>,
    judge: JudgeInForce | null,
  ): { competitionId: string; plan: RunChangePlan; values: unknown[] } {
    const competitionId = records[0]!.competitionId;
    const plan = planRunChange(records, 1, w, excluded, judge);
    const { miner, baseline, skipped } = splitDeltas(plan.pairs);
    const col = <T>(f: (r: RunRecord) => T) => records.map(f);
    const criteria = plan.criteria;
    const values = withArrayLiterals([
      competitionId,
      miner.map((s) => s.d.taskId),
      miner.map((s) => s.d.minerHotkey),
      ...deltaColumns(miner),
      baseline.map((s) => s.d.taskId),
      ...deltaColumns(baseline),
      !skipped,
      col((r) => r.competitionId),
      col((r) => r.runId),
      col((r) => r.taskId),
      col((r) => r.kind),
      col((r) => r.minerHotkey),
      col((r) => r.validatorId),
      col((r) => r.attemptNo),
      col((r) => r.resolved),
      col((r) => r.tokens?.input ?? null),
      col((r) => r.tokens?.cachedInput ?? null),
      col((r) => r.tokens?.output ?? null),
      col((r) => r.timeTakenSeconds),
      col((r) => r.agentSteps),
      jsonArrayLiteral(col((r) => r.rubricVotes)),
      jsonArrayLiteral(col((r) => r.criteria)),
      col((r) => r.judgeDigest ?? null),
      col((r) => r.answerDate ?? null),
      plan.miners,
      [...plan.perTask.values()],
      [...plan.perTask.keys()],
      criteria.map((s) => s.taskId),
      criteria.map((s) => s.id),
      criteria.map((s) => s.graded),
      criteria.map((s) => s.met),
      criteria.map((s) => s.split),
    ])!;
    return { competitionId, plan, values };
  }

  /** Sends a batch's statement (in a transaction scoped to its competition), then settles its aggregates. */
  async function sendBatch(c: PgContext, batch: ReturnType<typeof batchStatement>): Promise<void> {
    tellUncounted(c, batch.competitionId, batch.plan);
    const rows = await c.query<[SumOwner['kind'], string, string | null]>(INSERT_BATCH, batch.values, {
      array: true,
      name: 'pg_runs_insert_batch',
    });
    // A pair missing here was refused (its sums would pass 2^53 - 1): the 422, and no run was inserted.
    const written = new Set(rows.map(([kind, taskId, hotkey]) => deltaKey({ kind, taskId, minerHotkey: hotkey })));
    await settleAggregates(c, batch.plan.pairs, written, 1);
  }

  const repo = {
    /** The stored runs among the given ids, in the order asked. */
    async existing(competitionId: string, runIds: string[]): Promise<Map<string, StoredRun>> {
      const found = new Map<string, StoredRun>();
      if (runIds.length === 0) return found;
      // One unique-index lookup per id, whatever the statistics say. With `run_id = ANY($2)` (or a
      // join) and statistics taken while the table was small (autovacuum off, or behind a fast
      // ingest), the planner scanned the whole competition for each batch: ingest fell from 22k to
      // 7k runs/s as the runs grew.
      const rows = await ctx.query<RunRow>(
        `SELECT r.* FROM unnest($2::text[]) AS asked(run_id)
          CROSS JOIN LATERAL (SELECT * FROM runs WHERE competition_id = $1 AND run_id = asked.run_id LIMIT 1) r`,
        [competitionId, runIds],
        { name: 'pg_runs_existing' },
      );
      const byId = new Map(rows.map((r) => [r.run_id, r]));
      for (const id of runIds) {
        const row = byId.get(id);
        if (row && !found.has(id)) found.set(id, fromRow(row));
      }
      return found;
    },
    async get(competitionId: string, runId: string): Promise<StoredRun | null> {
      const [row] = await ctx.query<RunRow>('SELECT * FROM runs WHERE competition_id = $1 AND run_id = $2', [
        competitionId,
        runId,
      ]);
      return row ? fromRow(row) : null;
    },
    async list(competitionId: string, f: RunFilter): Promise<StoredRun[]> {
      const rows = await ctx.query<RunRow>(
        `SELECT * FROM runs WHERE competition_id = $1 AND seq > $2
          AND ($4::text IS NULL OR validator_id = $4) AND ($5::text IS NULL OR miner_hotkey = $5)
          AND ($6::text IS NULL OR task_id = $6) AND ($7::text IS NULL OR kind = $7)
        ORDER BY seq LIMIT $3`,
        [
          competitionId,
          f.after ?? 0,
          f.limit,
          f.validatorId ?? null,
          f.minerHotkey ?? null,
          f.taskId ?? null,
          f.kind ?? null,
        ],
      );
      return rows.map(fromRow);
    },
    /**
     * Inserts runs of one competition and updates every aggregate, atomically (in the open
     * transaction, or one of its own). Runs of validators in `excluded`, and runs stale under
     * `judge` (the one in force, src/db/plan/runBatch.ts isStaleRun), are stored and counted as
     * stored, but enter no aggregate.
     */
    async insertMany(
      records: RunRecord[],
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
    ): Promise<void> {
      if (records.length === 0) return;
      const competitionId = records[0]!.competitionId;
      await ctx.write(competitionId, (c) => sendBatch(c, batchStatement(records, w, excluded, judge)));
    },
    /** Deletes one run (kept in deleted_runs for snapshot inputs) and takes it out of every aggregate. */
    async delete(
      run: StoredRun,
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
    ): Promise<void> {
      await ctx.write(run.competitionId, async (c) => {
        // The deletion's number comes from the run sequence, taken even when the run is gone
        // already, as SQLite's bump of sqlite_sequence is.
        const [[seq]] = (await c.query<[number]>(`SELECT nextval('${RUN_SEQUENCE}')`, [], { array: true })) as [
          [number],
        ];
        await c.execute(KEEP_DELETED, [run.competitionId, run.runId, seq]);
        // A deletion makes no miner known (its plan's counted run, if any, is known already).
        const plan = { ...planRunChange([run], -1, w, excluded, judge), miners: [] };
        await applyPlan(c, run.competitionId, plan);
        await applyAggregates(c, plan.pairs, -1);
      });
    },
  };
  return {
    ...repo,
    /**
     * The stored runs among the batch's ids read first (one statement), then only the new runs
     * inserted: all of them in one statement.
     */
    async insertNew(
      records: RunRecord[],
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
      check?: (stored: ReadonlyMap<string, StoredRun>) => Promise<void>,
    ): Promise<Map<string, StoredRun>> {
      if (records.length === 0) return new Map();
      const competitionId = records[0]!.competitionId;
      // The lookup goes out first, and the all-new batch's statement (the usual case) is built
      // while PostgreSQL answers it: inside the competition's turn, the two overlap.
      const lookup = repo.existing(
        competitionId,
        records.map((r) => r.runId),
      );
      let batch: ReturnType<typeof batchStatement>;
      try {
        batch = batchStatement(records, w, excluded, judge);
      } catch (err) {
        await lookup.catch(() => undefined);
        throw err;
      }
      const stored = await lookup;
      // Refused before the insert: a number the sequence handed out stays taken after a rollback.
      if (stored.size > 0 && check) await check(stored);
      if (stored.size === 0) await ctx.write(competitionId, (c) => sendBatch(c, batch));
      else
        await repo.insertMany(
          records.filter((r) => !stored.has(r.runId)),
          w,
          excluded,
          judge,
        );
      return stored;
    },
  };
}
