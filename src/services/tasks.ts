// Tasks: the JSON upsert, the SWE-Atlas QnA file import and the task list.
import type { z } from 'zod';
import type { Store } from '../db/contract.js';
import type { CriterionRecord, TaskRecord, TaskType } from '../db/tasks.js';
import type { TaskInputSchema } from '../schemas/tasks.js';
import { noCompetitionToWrite } from '../errors.js';
import type { ImportFormat } from './importJob.js';
import { importQnaUpload, type UploadPieces } from './importTasks.js';
import type { Complexity, Stage } from '../scoring/types.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';
import type { WriteGate } from './writeGate.js';

type TaskInput = z.infer<typeof TaskInputSchema>;
export type { ImportFormat };

export function fromTaskInput(t: TaskInput): TaskRecord {
  const { rubric, ...meta } = t.qna ?? { rubric: [] as NonNullable<TaskInput['qna']>['rubric'] };
  return {
    id: t.id,
    type: t.type,
    stage: t.stage ?? 'evaluation',
    complexity: t.complexity ?? null,
    plannedRuns: t.plannedRuns ?? null,
    qna: t.qna ? (meta as TaskRecord['qna']) : null,
    keepContent: t.qna === undefined,
    rubric: rubric.map((c): CriterionRecord => ({
      id: c.id,
      title: c.title,
      type: c.type.startsWith('negative') ? 'negative' : 'positive',
      importance: c.importance,
      originalTitle: c.originalTitle ?? c.title,
      change: c.change ?? null,
    })),
  };
}

export function tasksService(store: Store, audit: AuditService, gate: WriteGate) {
  const requireCompetition = async (db: Store, id: string) => {
    if (!(await db.competitions.get(id))) throw noCompetitionToWrite(id);
  };

  return {
    upsert(competitionId: string, tasks: TaskInput[], who: Principal) {
      return store.transaction(
        async (tx) => {
          await requireCompetition(tx, competitionId);
          const result = await tx.tasks.upsertMany(competitionId, tasks.map(fromTaskInput));
          if (result.imported + result.updated > 0) {
            await audit.record(tx, who, 'tasks.put', competitionId, `${tasks.length} tasks`, {
              ...result,
              taskIds: tasks.slice(0, 20).map((t) => t.id),
            });
          }
          return result;
        },
        { competitionId },
      );
    },

    /**
     * Imports a SWE-Atlas-QnA file: parsed in the import worker, every row validated, one bad row
     * rejects the whole file. Stage and complexity left out keep what stored tasks have.
     */
    async importQna(
      competitionId: string,
      body: UploadPieces,
      format: ImportFormat,
      options: { stage?: Stage; complexity?: Complexity },
      who: Principal,
    ) {
      // Before a byte is read: an unknown competition is a 404 whatever was sent.
      await requireCompetition(store, competitionId);
      return importQnaUpload(store, competitionId, body, format, options, { who, gate });
    },

    async list(competitionId: string) {
      await requireCompetition(store, competitionId);
      const criteria = await store.tasks.criteriaCounts(competitionId);
      const tasks = (await store.tasks.list(competitionId)).map((t) => ({
        id: t.id,
        type: t.type as TaskType,
        stage: t.stage as Stage,
        complexity: t.complexity as Complexity | null,
        plannedRuns: t.plannedRuns,
        runCount: t.runCount,
        baselineRuns: t.baselineRuns,
        criteriaCount: criteria.get(t.id) ?? 0,
      }));
      return { competitionId, tasks };
    },
  };
}
