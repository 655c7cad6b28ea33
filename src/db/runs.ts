// Run storage. Hot paths use prepared better-sqlite3 statements: a 5,000-run batch must not pay
// a query builder's per-row cost.
import type { Db } from './client.js';
import { aggregateWriter } from './aggregates.js';
import { emitWrite } from './events.js';
import { planRunChange, type JudgeInForce, type RunChangePlan } from './plan/runBatch.js';
import type { CriterionGrade, TokenWeights } from '../scoring/types.js';
import type { RunFilter, RunRecord, StoredRun, StoredVote } from './rows.js';

export type { RunFilter, RunRecord, StoredRun, StoredVote };

/** A `runs` row as either engine reads it (SQLite's booleans are 0/1). */
export interface RunRow {
  seq: number;
  competition_id: string;
  run_id: string;
  task_id: string;
  kind: 'baseline' | 'miner';
  miner_hotkey: string | null;
  validator_id: string | null;
  attempt_no: number | null;
  resolved: number | boolean;
  tokens_input: number | null;
  tokens_cached_input: number | null;
  tokens_output: number | null;
  time_taken_seconds: number | null;
  agent_steps: number | null;
  rubric_votes: string | null;
  grading: string | null;
  judge_digest: string | null;
  answer_date: string | null;
  created_at: string;
}

/** A stored run from its row, on either engine. */
export const fromRow = (r: RunRow): StoredRun => ({
  seq: r.seq,
  competitionId: r.competition_id,
  runId: r.run_id,
  taskId: r.task_id,
  kind: r.kind,
  minerHotkey: r.miner_hotkey,
  validatorId: r.validator_id,
  attemptNo: r.attempt_no,
  resolved: r.resolved === 1 || r.resolved === true,
  tokens:
    r.tokens_input === null || r.tokens_output === null
      ? null
      : { input: r.tokens_input, cachedInput: r.tokens_cached_input, output: r.tokens_output },
  timeTakenSeconds: r.time_taken_seconds,
  agentSteps: r.agent_steps,
  rubricVotes: r.rubric_votes === null ? null : (JSON.parse(r.rubric_votes) as StoredVote[]),
  criteria: r.grading === null ? null : (JSON.parse(r.grading) as CriterionGrade[]),
  judgeDigest: r.judge_digest,
  answerDate: r.answer_date,
  createdAt: r.created_at,
});

const INSERT_RUNS = `INSERT INTO runs (competition_id, run_id, task_id, kind, miner_hotkey, validator_id,
    attempt_no, resolved, tokens_input, tokens_cached_input, tokens_output, time_taken_seconds, agent_steps,
    rubric_votes, grading, judge_digest, answer_date) VALUES`;
/** The columns a run's insert binds, and its row of placeholders. */
const RUN_COLUMNS = 17;
const ROW = `(${Array<string>(RUN_COLUMNS).fill('?').join(', ')})`;
/** Rows a multi-row insert takes: 16, 32 and 64 measured alike, single rows 1.5 ms a batch slower. */
const RUN_CHUNK = 16;

/** A run's values in the order of INSERT_RUNS, written into `into` from `at`. */
function runValues(r: RunRecord, into: unknown[], at: number): void {
  const t = r.tokens;
  into[at] = r.competitionId;
  into[at + 1] = r.runId;
  into[at + 2] = r.taskId;
  into[at + 3] = r.kind;
  into[at + 4] = r.minerHotkey;
  into[at + 5] = r.validatorId;
  into[at + 6] = r.attemptNo;
  into[at + 7] = r.resolved ? 1 : 0;
  into[at + 8] = t?.input ?? null;
  into[at + 9] = t?.cachedInput ?? null;
  into[at + 10] = t?.output ?? null;
  into[at + 11] = r.timeTakenSeconds;
  into[at + 12] = r.agentSteps;
  into[at + 13] = r.rubricVotes ? (r.votesJson ?? JSON.stringify(r.rubricVotes)) : null;
  into[at + 14] = r.criteria ? JSON.stringify(r.criteria) : null;
  into[at + 15] = r.judgeDigest ?? null;
  into[at + 16] = r.answerDate ?? null;
}

export function runsRepo(db: Db) {
  const c = db.$client;
  const aggregates = aggregateWriter(db);
  const getRun = c.prepare('SELECT * FROM runs WHERE competition_id = ? AND run_id = ?');
  // The stored runs among a batch's ids (a JSON array) in one statement, not one per run.
  const getRuns = c.prepare(
    'SELECT * FROM runs WHERE competition_id = ? AND run_id IN (SELECT value FROM json_each(?))',
  );
  const insert = c.prepare(`${INSERT_RUNS} ${ROW}`);
  // A batch's runs go in RUN_CHUNK rows a statement: one call across to SQLite binds a chunk
  // instead of a row (bench: 5.1 → 3.5 ms of CPU a 1,000-run batch). One array of parameters is
  // filled again for every chunk.
  const insertChunk = c.prepare(`${INSERT_RUNS} ${Array<string>(RUN_CHUNK).fill(ROW).join(', ')}`);
  const chunkParams: unknown[] = new Array<unknown>(RUN_CHUNK * RUN_COLUMNS);
  const remove = c.prepare('DELETE FROM runs WHERE competition_id = ? AND run_id = ?');
  // A deletion takes the next number of the run sequence, so a snapshot taken at sequence S still
  // sees a run deleted after it (S < deleted_seq) and never one deleted before it.
  const nextSeq = c.prepare(`UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'runs' RETURNING seq`).pluck();
  const keepDeleted = c.prepare(`INSERT INTO deleted_runs (seq, competition_id, run_id, task_id, kind, miner_hotkey,
      validator_id, attempt_no, resolved, tokens_input, tokens_cached_input, tokens_output, time_taken_seconds,
      agent_steps, rubric_votes, grading, judge_digest, answer_date, created_at, deleted_seq)
    SELECT seq, competition_id, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved, tokens_input,
      tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, rubric_votes, grading, judge_digest,
      answer_date, created_at, ?
    FROM runs WHERE competition_id = ? AND run_id = ?`);
  const taskRunCount = c.prepare(`INSERT INTO task_run_counts (runs, competition_id, task_id) VALUES (?, ?, ?)
    ON CONFLICT (competition_id, task_id) DO UPDATE SET runs = runs + excluded.runs`);
  const list = c.prepare(`SELECT * FROM runs WHERE competition_id = @competitionId AND seq > @after
      AND (@validatorId IS NULL OR validator_id IS @validatorId) AND (@minerHotkey IS NULL OR miner_hotkey = @minerHotkey)
      AND (@taskId IS NULL OR task_id = @taskId) AND (@kind IS NULL OR kind = @kind)
    ORDER BY seq LIMIT @limit`);
  const addMiner = c.prepare('INSERT OR IGNORE INTO miners (competition_id, hotkey) VALUES (?, ?)');
  const criterionStats = c.prepare(`UPDATE task_criteria SET graded = graded + ?, met = met + ?,
      split = split + ? WHERE competition_id = ? AND task_id = ? AND id = ?`);

  /** Runs the statements a plan (src/db/plan/runBatch.ts) names, but the runs' own rows. */
  function applyPlan(competitionId: string, plan: RunChangePlan, sign: 1 | -1): void {
    if (plan.uncounted > 0) emitWrite(db, { competitionId, kind: 'runs' });
    for (const hotkey of plan.miners) addMiner.run(competitionId, hotkey);
    for (const [taskId, n] of plan.perTask) taskRunCount.run(n, competitionId, taskId);
    for (const s of plan.criteria) criterionStats.run(s.graded, s.met, s.split, competitionId, s.taskId, s.id);
    aggregates.apply(plan.pairs, sign);
  }

  /** The stored runs among the given ids, in the order asked (as on PostgreSQL). */
  function existing(competitionId: string, runIds: string[]): Map<string, StoredRun> {
    const byId = new Map<string, StoredRun>();
    for (const row of getRuns.iterate(competitionId, JSON.stringify(runIds)) as IterableIterator<RunRow>)
      byId.set(row.run_id, fromRow(row));
    if (byId.size < 2) return byId;
    const found = new Map<string, StoredRun>();
    for (const id of runIds) {
      const run = byId.get(id);
      if (run && !found.has(id)) found.set(id, run);
    }
    return found;
  }

  const rowParams: unknown[] = new Array<unknown>(RUN_COLUMNS);
  /** One run's row. */
  function insertRow(r: RunRecord): void {
    runValues(r, rowParams, 0);
    insert.run(rowParams);
  }

  /**
   * Inserts the records from `inserted.next` on, in chunks, then the last few one by one. Throws
   * what SQLite throws; a refused statement stores none of its rows (SQLite rolls the statement
   * back), so then every record before `inserted.next` is stored and none from it on. The parameter
   * arrays keep the last rows' values (a few kB) until the next insert.
   */
  function insertFrom(records: readonly RunRecord[], inserted: { next: number }): void {
    let i = inserted.next;
    for (; i + RUN_CHUNK <= records.length; i += RUN_CHUNK) {
      for (let j = 0; j < RUN_CHUNK; j++) runValues(records[i + j]!, chunkParams, j * RUN_COLUMNS);
      inserted.next = i;
      insertChunk.run(chunkParams);
    }
    for (; i < records.length; i++) {
      inserted.next = i;
      insertRow(records[i]!);
    }
    inserted.next = records.length;
  }

  return {
    existing,
    get(competitionId: string, runId: string): StoredRun | null {
      const row = getRun.get(competitionId, runId) as RunRow | undefined;
      return row ? fromRow(row) : null;
    },
    /** Runs in sequence order (oldest first) after `after`, filtered. */
    list(competitionId: string, f: RunFilter): StoredRun[] {
      const rows = list.all({
        competitionId,
        after: f.after ?? 0,
        limit: f.limit,
        validatorId: f.validatorId ?? null,
        minerHotkey: f.minerHotkey ?? null,
        taskId: f.taskId ?? null,
        kind: f.kind ?? null,
      }) as RunRow[];
      return rows.map(fromRow);
    },
    /**
     * Inserts runs of one competition and updates every aggregate; call inside a transaction.
     * Runs of validators in `excluded`, and runs stale under `judge` (the one in force,
     * src/db/plan/runBatch.ts isStaleRun), are stored and counted as stored, but enter no aggregate.
     */
    insertMany(
      records: RunRecord[],
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
    ): void {
      insertFrom(records, { next: 0 });
      if (records.length === 0) return;
      applyPlan(records[0]!.competitionId, planRunChange(records, 1, w, excluded, judge), 1);
    },
    /**
     * Inserts the runs whose ids are not stored yet, as insertMany does, and answers the stored runs
     * among the others, in the order given; call inside a transaction, which a caller refusing what
     * is stored rolls back. The insert is its own dedupe check: the unique index answers it, so an
     * all-new batch reads nothing first. The first stored id found (its chunk's insert refused, and
     * none of the chunk's rows stored) has the rest of the batch from that chunk on read in one
     * statement, and only their new runs inserted: a refused insert takes no number of the run
     * sequence, where an ignored one (`ON CONFLICT DO NOTHING`) would.
     */
    insertNew(
      records: RunRecord[],
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
    ): Map<string, StoredRun> {
      let stored = new Map<string, StoredRun>();
      if (records.length === 0) return stored;
      const competitionId = records[0]!.competitionId;
      let fresh = records;
      const inserted = { next: 0 };
      try {
        insertFrom(records, inserted);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
        // The refused statement's rows are not stored: from its first on, the batch is read.
        const rest = records.slice(inserted.next);
        stored = existing(
          competitionId,
          rest.map((r) => r.runId),
        );
        fresh = records.slice(0, inserted.next);
        for (const r of rest) {
          if (stored.has(r.runId)) continue;
          insertRow(r);
          fresh.push(r);
        }
      }
      if (fresh.length > 0) applyPlan(competitionId, planRunChange(fresh, 1, w, excluded, judge), 1);
      return stored;
    },
    /** Deletes one run (kept in deleted_runs for snapshot inputs) and takes it out of every aggregate. */
    delete(
      run: StoredRun,
      w: TokenWeights,
      excluded: ReadonlySet<string> = new Set(),
      judge: JudgeInForce | null = null,
    ): void {
      keepDeleted.run(nextSeq.get(), run.competitionId, run.runId);
      remove.run(run.competitionId, run.runId);
      // A deletion makes no miner known (its plan's counted run, if any, is known already).
      applyPlan(run.competitionId, { ...planRunChange([run], -1, w, excluded, judge), miners: [] }, -1);
    },
  };
}
