// Task input mapping and the QnA import.
import type { z } from 'zod';
import type { Repos } from '../db/repos.js';
import type { CriterionRecord, TaskRecord } from '../db/tasks.js';
import type { TaskInputSchema } from '../schemas/tasks.js';
import { badRequest } from '../errors.js';
import { parseQnaImport, type QnaTask } from '../qna/index.js';
import type { Complexity, Stage } from '../scoring/types.js';

type TaskInput = z.infer<typeof TaskInputSchema>;

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

export async function importQnaTasks(
  repos: Repos,
  competitionId: string,
  body: Buffer,
  format: 'parquet' | 'jsonl',
  options: { stage?: Stage; complexity?: Complexity },
) {
  const parsed = await parseQnaImport(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), format);
  if (!parsed.ok) {
    // A whole-file problem (unreadable Parquet, no rows) has no row to name.
    const errors = parsed.problems.map((p) => ({ path: p.row === null ? p.field : `row ${p.row}/${p.field}`, message: p.message }));
    const detail = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
    throw badRequest(`import rejected, nothing stored: ${detail}`, errors);
  }
  const records = parsed.tasks.map((t) => fromQnaTask(t, options.stage ?? 'evaluation', options.complexity ?? null));
  return repos.tasks.upsertMany(competitionId, records);
}
