// Tasks and their rubric criteria.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { taskCriteria, tasks } from './schema.js';
import { emitWrite } from './events.js';
import { rubricCache } from './rubricCache.js';
import type { Polarity } from '../scoring/types.js';
import type { CriterionRecord, CriterionRow, QnaMeta, Rubric, TaskRecord, TaskRow } from './rows.js';
import { planTasksUpsert, TasksHaveRuns, type StoredTask } from './plan/tasksUpsert.js';

export type { CriterionRecord, QnaMeta, Rubric, TaskRecord, TaskRow, TaskType } from './rows.js';
export { TasksHaveRuns };

/** A criterion from its row, on either engine (the columns are the same). */
export const toCriterion = (c: Omit<CriterionRow, 'graded' | 'met' | 'split'>): CriterionRecord => ({
  id: c.id,
  title: c.title,
  type: c.type as Polarity,
  importance: c.importance,
  originalTitle: c.originalTitle,
  change: c.change,
});
export function tasksRepo(db: Db) {
  // Prepared once: run ingestion looks up every task of a batch, and building and preparing the
  // query on each call would cost more than the rest of the ingest.
  const criteriaQuery = db
    .select()
    .from(taskCriteria)
    .where(
      and(
        eq(taskCriteria.competitionId, sql.placeholder('competitionId')),
        eq(taskCriteria.taskId, sql.placeholder('taskId')),
      ),
    )
    .orderBy(asc(taskCriteria.position))
    .prepare();
  const getQuery = db
    .select()
    .from(tasks)
    .where(and(eq(tasks.competitionId, sql.placeholder('competitionId')), eq(tasks.id, sql.placeholder('taskId'))))
    .prepare();
  // The rubric writes of an import commit, prepared once: building and preparing an insert per
  // criterion would hold the event loop for milliseconds per task.
  const deleteCriteria = db
    .delete(taskCriteria)
    .where(
      and(
        eq(taskCriteria.competitionId, sql.placeholder('competitionId')),
        eq(taskCriteria.taskId, sql.placeholder('taskId')),
      ),
    )
    .prepare();
  const insertCriterion = db
    .insert(taskCriteria)
    .values({
      competitionId: sql.placeholder('competitionId'),
      taskId: sql.placeholder('taskId'),
      position: sql.placeholder('position'),
      id: sql.placeholder('id'),
      title: sql.placeholder('title'),
      type: sql.placeholder('type'),
      importance: sql.placeholder('importance'),
      originalTitle: sql.placeholder('originalTitle'),
      change: sql.placeholder('change'),
    })
    .prepare();

  function criteria(competitionId: string, taskId: string) {
    return criteriaQuery.all({ competitionId, taskId });
  }

  const runCountOf = db.$client
    .prepare('SELECT runs FROM task_run_counts WHERE competition_id = ? AND task_id = ?')
    .pluck();
  const runCounts = db.$client.prepare('SELECT task_id, runs FROM task_run_counts WHERE competition_id = ?').raw();
  // What ingestion needs of a task, without the QnA text: its type and its rubric's ids and polarities.
  // One statement each for all the tasks a batch names (a JSON array of ids), not two per task.
  const typesOf = db.$client
    .prepare('SELECT id, type FROM tasks WHERE competition_id = ? AND id IN (SELECT value FROM json_each(?))')
    .raw();
  const rubricsOf = db.$client
    .prepare(
      `SELECT task_id, id, type FROM task_criteria
      WHERE competition_id = ? AND task_id IN (SELECT value FROM json_each(?)) ORDER BY task_id, position`,
    )
    .raw();

  // Kept between batches on this connection while no rubric changes (./rubricCache.ts).
  const keptRubrics = rubricCache(db.$client);
  /** The rubrics of those of `taskIds` that exist. */
  function readRubrics(competitionId: string, taskIds: readonly string[]): Map<string, Rubric> {
    const ids = JSON.stringify(taskIds);
    const criteria = new Map<string, Rubric['criteria']>();
    for (const [taskId, id, polarity] of rubricsOf.all(competitionId, ids) as [string, string, Polarity][]) {
      let list = criteria.get(taskId);
      if (!list) criteria.set(taskId, (list = []));
      list.push({ id, type: polarity });
    }
    const found = new Map<string, Rubric>();
    for (const [taskId, type] of typesOf.all(competitionId, ids) as [string, string][])
      found.set(taskId, { type, criteria: criteria.get(taskId) ?? [] });
    return found;
  }

  function get(competitionId: string, taskId: string): TaskRow | null {
    const row = getQuery.get({ competitionId, taskId });
    if (!row) return null;
    return { ...row, runCount: (runCountOf.get(competitionId, taskId) as number | undefined) ?? 0 };
  }

  function writeCriteria(competitionId: string, t: { id: string; rubric: CriterionRecord[] }): void {
    deleteCriteria.run({ competitionId, taskId: t.id });
    t.rubric.forEach((c, position) => {
      insertCriterion.run({ competitionId, taskId: t.id, position, ...c });
    });
  }

  return {
    get,
    criteria,
    list(competitionId: string): TaskRow[] {
      const counts = new Map((runCounts.all(competitionId) as [string, number][]).map(([id, n]) => [id, n]));
      return db
        .select()
        .from(tasks)
        .where(eq(tasks.competitionId, competitionId))
        .orderBy(asc(tasks.id))
        .all()
        .map((t) => ({ ...t, runCount: counts.get(t.id) ?? 0 }));
    },
    /**
     * Each task's type and rubric (criterion ids and polarities, in order) as run ingestion grades
     * with; null for an unknown task. Keyed by the ids asked for, in their order.
     */
    rubrics(competitionId: string, taskIds: readonly string[]): Map<string, Rubric | null> {
      const kept = keptRubrics(competitionId);
      const missing = kept ? taskIds.filter((id) => !kept.has(id)) : taskIds;
      const read = missing.length > 0 ? readRubrics(competitionId, missing) : null;
      const found = new Map<string, Rubric | null>();
      for (const taskId of taskIds) {
        const rubric = kept?.get(taskId) ?? read?.get(taskId) ?? null;
        found.set(taskId, rubric);
        if (rubric && kept) kept.set(taskId, rubric);
      }
      return found;
    },
    criteriaCounts(competitionId: string): Map<string, number> {
      const rows = db.$client
        .prepare('SELECT task_id AS taskId, count(*) AS n FROM task_criteria WHERE competition_id = ? GROUP BY task_id')
        .all(competitionId) as { taskId: string; n: number }[];
      return new Map(rows.map((r) => [r.taskId, r.n]));
    },
    /**
     * Creates or updates tasks atomically. Changing the type or rubric of a task that already has
     * runs is a 409: its stored gradings were made against the old rubric.
     */
    upsertMany(competitionId: string, records: TaskRecord[]): { imported: number; updated: number; unchanged: number } {
      return db.transaction(() => {
        const stored = new Map<string, StoredTask>();
        for (const id of new Set(records.map((r) => r.id))) {
          const row = get(competitionId, id);
          if (row)
            stored.set(id, {
              ...row,
              qna: row.qna as QnaMeta | null,
              rubric: criteria(competitionId, id).map(toCriterion),
            });
        }
        const { counts, writes } = planTasksUpsert(stored, records);
        for (const t of writes) {
          const values = {
            type: t.type,
            stage: t.stage,
            complexity: t.complexity,
            plannedRuns: t.plannedRuns,
            qna: t.qna,
          };
          if (t.inserted)
            db.insert(tasks)
              .values({ competitionId, id: t.id, ...values })
              .run();
          else
            db.update(tasks)
              .set(values)
              .where(and(eq(tasks.competitionId, competitionId), eq(tasks.id, t.id)))
              .run();
          if (t.rubricWritten) writeCriteria(competitionId, t);
        }
        if (counts.imported + counts.updated > 0) emitWrite(db, { competitionId, kind: 'tasks' });
        return counts;
      });
    },
  };
}
