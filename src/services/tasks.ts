// Tasks: the JSON upsert, the SWE-Atlas QnA file import and the task list.
import type { z } from 'zod';
import type { Repos } from '../db/repos.js';
import type { CriterionRecord, TaskRecord, TaskType } from '../db/tasks.js';
import type { TaskInputSchema } from '../schemas/tasks.js';
import { badRequest, notFound, unsupported } from '../errors.js';
import { parseQnaImport, type QnaTask } from '../qna/index.js';
import type { Complexity, Stage } from '../scoring/types.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';

type TaskInput = z.infer<typeof TaskInputSchema>;
export type ImportFormat = 'parquet' | 'jsonl';

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

export function fromQnaTask(t: QnaTask, stage: Stage, complexity: Complexity | null): TaskRecord {
  const { id, rubric, ...meta } = t;
  return { id, type: 'swe_atlas_qna', stage, complexity, plannedRuns: null, qna: meta, rubric };
}

export function tasksService(repos: Repos, audit: AuditService) {
  const requireCompetition = (id: string) => {
    if (!repos.competitions.get(id)) throw notFound(`competition ${id} does not exist`);
  };

  return {
    upsert(competitionId: string, tasks: TaskInput[], who: Principal) {
      return repos.transaction(() => {
        requireCompetition(competitionId);
        const result = repos.tasks.upsertMany(competitionId, tasks.map(fromTaskInput));
        if (result.imported + result.updated > 0) {
          audit.record(who, 'tasks.put', competitionId, `${tasks.length} tasks`, { ...result, taskIds: tasks.slice(0, 20).map((t) => t.id) });
        }
        return result;
      });
    },

    /** Imports a SWE-Atlas-QnA file: every row is validated, one bad row rejects the whole file. */
    async importQna(competitionId: string, body: Uint8Array, format: ImportFormat, options: { stage?: Stage; complexity?: Complexity }, who: Principal) {
      requireCompetition(competitionId);
      if (body.length === 0) {
        throw unsupported('send a non-empty Parquet file (application/vnd.apache.parquet) or JSON Lines (application/x-ndjson)');
      }
      const parsed = await parseQnaImport(body, format);
      if (!parsed.ok) {
        // A whole-file problem (unreadable Parquet, no rows) has no row to name.
        const errors = parsed.problems.map((p) => ({ path: p.row === null ? p.field : `row ${p.row}/${p.field}`, message: p.message }));
        const detail = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
        throw badRequest(`import rejected, nothing stored: ${detail}`, errors);
      }
      const records = parsed.tasks.map((t) => fromQnaTask(t, options.stage ?? 'evaluation', options.complexity ?? null));
      return repos.transaction(() => {
        // The competition may have gone while the file was parsed; the upsert's foreign key would say so less clearly.
        requireCompetition(competitionId);
        const result = repos.tasks.upsertMany(competitionId, records);
        if (result.imported + result.updated > 0) {
          audit.record(who, 'tasks.import', competitionId, `${records.length} tasks`, { ...result, format, ...options });
        }
        return result;
      });
    },

    list(competitionId: string) {
      requireCompetition(competitionId);
      const criteria = repos.tasks.criteriaCounts(competitionId);
      const tasks = repos.tasks.list(competitionId).map((t) => ({
        id: t.id, type: t.type as TaskType, stage: t.stage as Stage, complexity: t.complexity as Complexity | null,
        plannedRuns: t.plannedRuns, runCount: t.runCount, baselineRuns: t.baselineRuns, criteriaCount: criteria.get(t.id) ?? 0,
      }));
      return { competitionId, tasks };
    },
  };
}
