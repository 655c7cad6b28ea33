// Reads for the streamed exports, one bounded page at a time. A page is read whole and
// synchronously (`.all()`), so no statement stays open between pages: better-sqlite3 refuses
// every other statement on a connection while an iterator is open, and the writes of other
// requests share this connection. Keyset paging keeps each page's cost independent of its place.
import { judgedSql, judgeInForceSql } from './aggregates.js';
import type { Db } from './client.js';

/** A run as exported, in column order (src/exports/runColumns.ts); `criteria` is the stored JSON text. */
export type RunExportRow = [
  seq: number,
  runId: string,
  taskId: string,
  kind: string,
  minerHotkey: string | null,
  validatorId: string | null,
  attemptNo: number | null,
  resolved: 0 | 1,
  tokensInput: number | null,
  tokensCachedInput: number | null,
  tokensOutput: number | null,
  timeTakenSeconds: number | null,
  agentSteps: number | null,
  createdAt: string,
  criteria: string | null,
  judgeDigest: string | null,
  answerDate: string | null,
  stale: 0 | 1,
];

/** A task as exported: its columns and its QnA content as stored (JSON text). */
export type TaskExportRow = [
  id: string,
  type: string,
  stage: string,
  complexity: string | null,
  plannedRuns: number | null,
  runCount: number,
  baselineRuns: number,
  qna: string | null,
];

/** A rubric criterion as stored, in position order. */
export type CriterionExportRow = [
  taskId: string,
  position: number,
  id: string,
  title: string,
  type: string,
  importance: string,
  originalTitle: string,
  change: string | null,
];

const RUN_COLUMNS = `seq, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved, tokens_input,
  tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, created_at, grading, judge_digest, answer_date,
  CASE WHEN ${judgedSql(judgeInForceSql)} THEN 0 ELSE 1 END`;

export function exportsRepo(db: Db) {
  const c = db.$client;
  const runSeq = c.prepare(`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0)`).pluck();
  // The runs as they stood at sequence @upTo: live runs stored up to it, and runs deleted after it
  // (a deletion takes the next sequence number, src/db/runs.ts). Each side is read in seq order
  // (the runs' rowid; deleted_runs_seq), and SQLite merges the two without a sort. `NOT INDEXED`
  // keeps the planner off the (competition, run id) index, which would sort the whole competition
  // on every page.
  const runPage = c
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM runs NOT INDEXED
      WHERE competition_id = @id AND seq > @after AND seq <= @upTo
    UNION ALL
    SELECT ${RUN_COLUMNS} FROM deleted_runs INDEXED BY deleted_runs_seq
      WHERE competition_id = @id AND seq > @after AND seq <= @upTo AND deleted_seq > @upTo
    ORDER BY seq LIMIT @limit`,
    )
    .raw();
  const taskPage = c
    .prepare(
      `SELECT t.id, t.type, t.stage, t.complexity, t.planned_runs, coalesce(n.runs, 0), t.baseline_runs, t.qna
    FROM tasks t LEFT JOIN task_run_counts n ON n.competition_id = t.competition_id AND n.task_id = t.id
    WHERE t.competition_id = ? AND t.id > ? ORDER BY t.id LIMIT ?`,
    )
    .raw();
  const criteria = c
    .prepare(
      `SELECT task_id, position, id, title, type, importance, original_title, change
    FROM task_criteria WHERE competition_id = ? AND task_id >= ? AND task_id <= ? ORDER BY task_id, position`,
    )
    .raw();

  return {
    /** The run sequence now: every run stored so far, and every deletion, has a number <= this. */
    runSeq: () => runSeq.get() as number,
    /** Up to `limit` runs with `after < seq <= upTo`, in seq order, as the competition stood at `upTo`. */
    runPage: (competitionId: string, after: number, upTo: number, limit: number) =>
      runPage.all({ id: competitionId, after, upTo, limit }) as RunExportRow[],
    /** Up to `limit` tasks with id > `after`, in id order (byte order of the ids). */
    taskPage: (competitionId: string, after: string, limit: number) =>
      taskPage.all(competitionId, after, limit) as TaskExportRow[],
    /** The criteria of the tasks with `first <= id <= last`, by task then position. */
    criteria: (competitionId: string, first: string, last: string) =>
      criteria.all(competitionId, first, last) as CriterionExportRow[],
  };
}
