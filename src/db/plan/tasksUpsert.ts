// What an import or a PUT of tasks does to each task it sends: insert, update (columns, and the
// rubric when it changed) or leave unchanged, decided record by record on the tasks as stored and
// as the batch's earlier records left them (a task sent twice sees its first version). A task
// that already has runs may not change its type or rubric: its stored gradings were made against
// the old one, and the whole write is refused (409) with every such task named.
import { DomainError, listSome } from '../../errors.js';
import type { CriterionRecord, QnaMeta, TaskRecord } from '../rows.js';

/** The 409 of a write that would change the type or rubric of tasks that already have runs. */
export class TasksHaveRuns extends DomainError {
  constructor(readonly ids: string[]) {
    super(
      'conflict',
      `tasks ${listSome(ids)} already have runs; their type or rubric cannot change`,
      ids.map((id) => ({ path: `tasks/${id}`, message: 'type or rubric change on a task with runs' })),
    );
  }
}

/** Equal for equal rubrics: an import compares what it sends with what is stored by these keys. */
export const rubricKey = (r: CriterionRecord[]) =>
  JSON.stringify(r.map((c) => [c.id, c.title, c.type, c.importance, c.originalTitle, c.change]));

const qnaKey = (q: QnaMeta | null) =>
  q
    ? JSON.stringify([
        q.prompt,
        q.referenceAnswer,
        q.repositoryUrl,
        q.repositoryBaseCommit,
        q.language,
        q.category,
        q.dockerImage,
      ])
    : 'null';

/** A stored task as the plan reads it: its columns, its rubric in order, and its run count. */
export interface StoredTask {
  type: string;
  stage: string;
  complexity: string | null;
  plannedRuns: number | null;
  qna: QnaMeta | null;
  rubric: CriterionRecord[];
  runCount: number;
}

/** A task to write, with the columns it ends with. */
export interface TaskWrite extends StoredTask {
  id: string;
  /** Not stored before this batch (an insert), or stored (an update). */
  inserted: boolean;
  /** Its rubric is written again (its criteria deleted and inserted). */
  rubricWritten: boolean;
}

export interface TasksUpsertPlan {
  counts: { imported: number; updated: number; unchanged: number };
  /** The tasks to insert or update, each once, with its final columns: the stored ones first. */
  writes: TaskWrite[];
}

/**
 * The plan for `records` over `stored` (the stored tasks among the ids sent). Throws TasksHaveRuns
 * when any record would change the type or rubric of a task with runs.
 */
export function planTasksUpsert(
  stored: ReadonlyMap<string, StoredTask>,
  records: readonly TaskRecord[],
): TasksUpsertPlan {
  const current = new Map<string, TaskWrite & { changed: boolean }>();
  for (const [id, t] of stored) current.set(id, { ...t, id, inserted: false, rubricWritten: false, changed: false });
  const counts = { imported: 0, updated: 0, unchanged: 0 };
  const locked: string[] = [];
  for (const sent of records) {
    const before = current.get(sent.id);
    const oldRubric = before ? before.rubric : [];
    const t = sent.keepContent && before?.type === sent.type ? { ...sent, qna: before.qna, rubric: oldRubric } : sent;
    const values = { type: t.type, stage: t.stage, complexity: t.complexity, plannedRuns: t.plannedRuns, qna: t.qna };
    if (!before) {
      current.set(t.id, {
        id: t.id,
        ...values,
        rubric: t.rubric,
        runCount: 0,
        inserted: true,
        rubricWritten: true,
        changed: true,
      });
      counts.imported++;
      continue;
    }
    const rubricChanged = rubricKey(oldRubric) !== rubricKey(t.rubric);
    if ((rubricChanged || before.type !== t.type) && before.runCount > 0) {
      locked.push(t.id);
      continue;
    }
    const same =
      !rubricChanged &&
      before.type === t.type &&
      before.stage === t.stage &&
      before.complexity === t.complexity &&
      before.plannedRuns === t.plannedRuns &&
      qnaKey(before.qna) === qnaKey(t.qna);
    if (same) {
      counts.unchanged++;
      continue;
    }
    Object.assign(before, values, { changed: true });
    if (rubricChanged) Object.assign(before, { rubric: t.rubric, rubricWritten: true });
    counts.updated++;
  }
  if (locked.length > 0) throw new TasksHaveRuns(locked);
  const writes = [...current.values()].filter((t) => t.changed).map(({ changed: _, ...t }) => t);
  return { counts, writes };
}
