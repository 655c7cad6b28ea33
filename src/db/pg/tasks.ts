// src/db/tasks.ts on PostgreSQL. An import reads the stored tasks and rubrics it touches in two
// statements, plans its writes (src/db/plan/tasksUpsert.ts), and writes in one statement per table.
import type { Polarity } from '../../scoring/types.js';
import { planTasksUpsert, type StoredTask, type TaskWrite } from '../plan/tasksUpsert.js';
import type { CriterionRow, QnaMeta, Rubric, TaskRecord, TaskRow } from '../rows.js';
import { toCriterion } from '../tasks.js';
import type { PgContext } from './context.js';

const CRITERION_COLUMNS = `competition_id AS "competitionId", task_id AS "taskId", id, position, title, type,
  importance, original_title AS "originalTitle", change, graded, met, split`;

// Keys in the order of SQLite's drizzle row (src/db/schema.ts), then runCount.
const TASK_COLUMNS = `t.competition_id AS "competitionId", t.id, t.type, t.stage, t.complexity,
  t.planned_runs AS "plannedRuns", t.qna, t.baseline_runs AS "baselineRuns", t.baseline_resolved AS "baselineResolved",
  t.baseline_token_count AS "baselineTokenCount", t.baseline_input_sum AS "baselineInputSum",
  t.baseline_cached_sum AS "baselineCachedSum", t.baseline_output_sum AS "baselineOutputSum",
  coalesce(n.runs, 0) AS "runCount"`;
const TASK_FROM = `tasks t LEFT JOIN task_run_counts n ON n.competition_id = t.competition_id AND n.task_id = t.id`;

/** The qna column is JSON text; drizzle's json mode on SQLite gives it parsed. */
const toTaskRow = (r: TaskRow): TaskRow => ({ ...r, qna: r.qna === null ? null : JSON.parse(r.qna as string) });

export function pgTasksRepo(ctx: PgContext) {
  async function criteria(c: PgContext, competitionId: string, taskId: string): Promise<CriterionRow[]> {
    return c.query<CriterionRow>(
      `SELECT ${CRITERION_COLUMNS} FROM task_criteria WHERE competition_id = $1 AND task_id = $2 ORDER BY position`,
      [competitionId, taskId],
    );
  }

  return {
    async get(competitionId: string, taskId: string): Promise<TaskRow | null> {
      const [row] = await ctx.query<TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM ${TASK_FROM} WHERE t.competition_id = $1 AND t.id = $2`,
        [competitionId, taskId],
      );
      return row ? toTaskRow(row) : null;
    },
    criteria: (competitionId: string, taskId: string) => criteria(ctx, competitionId, taskId),
    async list(competitionId: string): Promise<TaskRow[]> {
      const rows = await ctx.query<TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM ${TASK_FROM} WHERE t.competition_id = $1 ORDER BY t.id COLLATE "C"`,
        [competitionId],
      );
      return rows.map(toTaskRow);
    },
    async rubrics(competitionId: string, taskIds: readonly string[]): Promise<Map<string, Rubric | null>> {
      // One query for the batch's tasks: a query per task would be most of a batch's time on PostgreSQL.
      const rows = await ctx.query<[string, string, string | null, Polarity | null]>(
        `SELECT t.id, t.type, c.id, c.type FROM tasks t
          LEFT JOIN task_criteria c ON c.competition_id = t.competition_id AND c.task_id = t.id
        WHERE t.competition_id = $1 AND t.id = ANY($2::text[]) ORDER BY t.id, c.position`,
        [competitionId, [...taskIds]],
        { array: true, name: 'pg_tasks_rubrics' },
      );
      const byTask = new Map<string, Rubric>();
      for (const [taskId, type, id, polarity] of rows) {
        let rubric = byTask.get(taskId);
        if (!rubric) byTask.set(taskId, (rubric = { type, criteria: [] }));
        if (id !== null) rubric.criteria.push({ id, type: polarity! });
      }
      return new Map(taskIds.map((id) => [id, byTask.get(id) ?? null]));
    },
    async criteriaCounts(competitionId: string): Promise<Map<string, number>> {
      const rows = await ctx.query<[string, number]>(
        `SELECT task_id, count(*) FROM task_criteria WHERE competition_id = $1
        GROUP BY task_id ORDER BY task_id COLLATE "C"`,
        [competitionId],
        { array: true },
      );
      return new Map(rows);
    },
    /**
     * Creates or updates tasks atomically. Changing the type or rubric of a task that already has
     * runs is a 409: its stored gradings were made against the old rubric. Nothing is written then.
     */
    upsertMany(
      competitionId: string,
      records: TaskRecord[],
    ): Promise<{ imported: number; updated: number; unchanged: number }> {
      return ctx.write(competitionId, async (c) => {
        const ids = [...new Set(records.map((r) => r.id))];
        const stored = new Map<string, StoredTask>();
        for (const row of await c.query<TaskRow>(
          `SELECT ${TASK_COLUMNS} FROM ${TASK_FROM} WHERE t.competition_id = $1 AND t.id = ANY($2::text[])`,
          [competitionId, ids],
        )) {
          const r = toTaskRow(row);
          stored.set(r.id, { ...r, qna: r.qna as QnaMeta | null, rubric: [] });
        }
        if (stored.size > 0) {
          for (const row of await c.query<CriterionRow>(
            `SELECT ${CRITERION_COLUMNS} FROM task_criteria WHERE competition_id = $1 AND task_id = ANY($2::text[])
            ORDER BY task_id, position`,
            [competitionId, [...stored.keys()]],
          )) {
            stored.get(row.taskId)!.rubric.push(toCriterion(row));
          }
        }
        const { counts, writes } = planTasksUpsert(stored, records);

        const taskColumns = (list: TaskWrite[]) => [
          list.map((t) => t.id),
          list.map((t) => t.type),
          list.map((t) => t.stage),
          list.map((t) => t.complexity),
          list.map((t) => t.plannedRuns),
          list.map((t) => (t.qna === null ? null : JSON.stringify(t.qna))),
        ];
        const inserted = writes.filter((t) => t.inserted);
        const updated = writes.filter((t) => !t.inserted);
        const rubrics = writes.filter((t) => t.rubricWritten);
        if (inserted.length > 0) {
          await c.execute(
            `INSERT INTO tasks (competition_id, id, type, stage, complexity, planned_runs, qna)
            SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])`,
            [competitionId, ...taskColumns(inserted)],
          );
        }
        if (updated.length > 0) {
          await c.execute(
            `UPDATE tasks t SET type = u.type, stage = u.stage, complexity = u.complexity,
              planned_runs = u.planned_runs, qna = u.qna
            FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
              AS u(id, type, stage, complexity, planned_runs, qna)
            WHERE t.competition_id = $1 AND t.id = u.id`,
            [competitionId, ...taskColumns(updated)],
          );
        }
        if (rubrics.length > 0) {
          await c.execute('DELETE FROM task_criteria WHERE competition_id = $1 AND task_id = ANY($2::text[])', [
            competitionId,
            rubrics.map((t) => t.id),
          ]);
          const rows = rubrics.flatMap((t) => t.rubric.map((cr, position) => ({ taskId: t.id, position, ...cr })));
          if (rows.length > 0) {
            await c.execute(
              `INSERT INTO task_criteria (competition_id, task_id, position, id, title, type, importance, original_title, change)
              SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])`,
              [
                competitionId,
                rows.map((r) => r.taskId),
                rows.map((r) => r.position),
                rows.map((r) => r.id),
                rows.map((r) => r.title),
                rows.map((r) => r.type),
                rows.map((r) => r.importance),
                rows.map((r) => r.originalTitle),
                rows.map((r) => r.change ?? null),
              ],
            );
          }
        }
        if (counts.imported + counts.updated > 0) c.emit({ competitionId, kind: 'tasks' });
        return counts;
      });
    },
  };
}
