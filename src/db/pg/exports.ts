// src/db/exports.ts on PostgreSQL: bounded pages for the streamed exports, by key.
import type { CriterionExportRow, RunExportRow, TaskExportRow } from '../exports.js';
import { judgedSql, judgeInForceSql } from './aggregates.js';
import type { PgContext } from './context.js';
import { readRunSeq } from './snapshots.js';

// `resolved` as SQLite's 0 or 1; the rest as stored.
const RUN_COLUMNS = `seq, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved::int, tokens_input,
  tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, created_at, grading, judge_digest, answer_date,
  (NOT ${judgedSql(judgeInForceSql)})::int`;

export function pgExportsRepo(ctx: PgContext) {
  return {
    /** The run sequence now: every run stored so far, and every deletion, has a number <= this. */
    runSeq: () => readRunSeq(ctx),
    /** Up to `limit` runs with `after < seq <= upTo`, in seq order, as the competition stood at `upTo`. */
    runPage(competitionId: string, after: number, upTo: number, limit: number): Promise<RunExportRow[]> {
      return ctx.query<RunExportRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE competition_id = $1 AND seq > $2 AND seq <= $3
        UNION ALL
        SELECT ${RUN_COLUMNS} FROM deleted_runs
          WHERE competition_id = $1 AND seq > $2 AND seq <= $3 AND deleted_seq > $3
        ORDER BY seq LIMIT $4`,
        [competitionId, after, upTo, limit],
        { array: true },
      );
    },
    /** Up to `limit` tasks with id > `after`, in id order (byte order of the ids). */
    taskPage(competitionId: string, after: string, limit: number): Promise<TaskExportRow[]> {
      return ctx.query<TaskExportRow>(
        `SELECT t.id, t.type, t.stage, t.complexity, t.planned_runs, coalesce(n.runs, 0), t.baseline_runs, t.qna
        FROM tasks t LEFT JOIN task_run_counts n ON n.competition_id = t.competition_id AND n.task_id = t.id
        WHERE t.competition_id = $1 AND t.id COLLATE "C" > $2 ORDER BY t.id COLLATE "C" LIMIT $3`,
        [competitionId, after, limit],
        { array: true },
      );
    },
    /** The criteria of the tasks with `first <= id <= last`, by task then position. */
    criteria(competitionId: string, first: string, last: string): Promise<CriterionExportRow[]> {
      return ctx.query<CriterionExportRow>(
        `SELECT task_id, position, id, title, type, importance, original_title, change
        FROM task_criteria WHERE competition_id = $1 AND task_id COLLATE "C" >= $2 AND task_id COLLATE "C" <= $3
        ORDER BY task_id COLLATE "C", position`,
        [competitionId, first, last],
        { array: true },
      );
    },
  };
}
