import { z } from 'zod';
import { named } from './named.js';
import { ComplexitySchema, LIMITS, StageSchema, TaskId } from './common.js';
import { commitField, criterionIdField, criterionTitle, qnaText, repositoryField } from '../qna/fields.js';
import { MAX_FIELD_LENGTH, MAX_PROMPT_LENGTH, MAX_REFERENCE_ANSWER_LENGTH, MAX_TITLE_LENGTH } from '../qna/types.js';

/** Labels are accepted case-insensitively with surrounding spaces trimmed (API.md). */
export const trimLowerCase = (v: unknown): unknown => (typeof v === 'string' ? v.trim().toLowerCase() : v);

/** Complexity as sent, stored lower-case. */
export const ComplexityInput = z.preprocess(trimLowerCase, ComplexitySchema);

export const CriterionInputSchema = named(
  'RubricCriterion',
  'One rubric criterion.',
  z.strictObject({
    id: criterionIdField().describe('Criterion id, 32 hex.'),
    title: criterionTitle(MAX_TITLE_LENGTH).describe('The criterion text the judge grades.'),
    type: z
      .enum(['positive', 'negative', 'positive hli verifier', 'negative hli verifier'])
      .describe('Polarity: a negative criterion is met when the verdict is NO.'),
    importance: z.literal('must have').describe('Always `must have`.'),
    originalTitle: z.string().max(4000).optional().describe("Scale's original text; default the title."),
    change: z
      .enum(['stability', 'precision', 'scale-correction'])
      .nullable()
      .optional()
      .describe('Kind of rewording in the AA edition, or null.'),
  }),
);

export const QnaInputSchema = named(
  'QnaContent',
  'SWE-Atlas QnA task content.',
  z.strictObject({
    prompt: qnaText(MAX_PROMPT_LENGTH).describe('The question presented to the agent.'),
    referenceAnswer: qnaText(MAX_REFERENCE_ANSWER_LENGTH).describe('Expert-written reference answer.'),
    repositoryUrl: repositoryField().describe('GitHub repository, owner/name.'),
    repositoryBaseCommit: commitField().describe('Pinned commit SHA.'),
    language: z.enum(['go', 'python', 'c', 'ts']).describe('Repository language.'),
    category: qnaText(MAX_FIELD_LENGTH).describe('Task category.'),
    dockerImage: qnaText(MAX_FIELD_LENGTH).describe('Docker image with the repository at /app.'),
    rubric: z
      .array(CriterionInputSchema)
      .min(1)
      .max(LIMITS.criteriaPerTask)
      .describe('Criteria; every one must be met for the run to resolve.'),
  }),
);

export const TaskInputSchema = named(
  'TaskSpec',
  'A task to create or update.',
  z
    .strictObject({
      id: TaskId.describe('Task identifier, unique within the competition.'),
      type: z.enum(['swebench_verified', 'swe_atlas_qna']).describe('How runs of the task are graded.'),
      stage: StageSchema.optional().describe('Default `evaluation`.'),
      complexity: ComplexityInput.nullable().optional().describe('short, medium or long (any case); absent for none.'),
      plannedRuns: z.number().int().min(1).max(1000).nullable().optional().describe('Planned repeat count (n).'),
      qna: QnaInputSchema.optional().describe(
        'QnA content and rubric; only on swe_atlas_qna tasks. Left out, an existing QnA task keeps its stored content.',
      ),
    })
    .superRefine((t, ctx) => {
      if (t.qna && t.type !== 'swe_atlas_qna')
        ctx.addIssue({ code: 'custom', path: ['qna'], message: 'only swe_atlas_qna tasks carry qna' });
      const seen = new Set<string>();
      t.qna?.rubric.forEach((c, i) => {
        if (seen.has(c.id))
          ctx.addIssue({ code: 'custom', path: ['qna', 'rubric', i, 'id'], message: `criterion id ${c.id} repeated` });
        seen.add(c.id);
      });
    }),
);

export const TaskUpsertSchema = named(
  'TaskUpsert',
  'Bulk upsert of tasks.',
  z
    .strictObject({
      tasks: z.array(TaskInputSchema).min(1).max(LIMITS.tasksPerRequest).describe('Up to 5,000 tasks.'),
    })
    .superRefine((b, ctx) => {
      const seen = new Set<string>();
      b.tasks.forEach((t, i) => {
        if (seen.has(t.id))
          ctx.addIssue({
            code: 'custom',
            path: ['tasks', i, 'id'],
            message: `task id ${t.id} repeated in the request`,
          });
        seen.add(t.id);
      });
    }),
);

export const TaskWriteResultSchema = named(
  'TaskWriteResult',
  'What a task upsert or import changed.',
  z.object({
    imported: z.number().int().describe('Tasks created.'),
    updated: z.number().int().describe('Existing tasks changed.'),
    unchanged: z.number().int().describe('Tasks sent exactly as stored.'),
  }),
);

export const TaskSchema = named(
  'Task',
  'A task with its run counts.',
  z.object({
    id: z.string().describe('Task identifier.'),
    type: z.enum(['swebench_verified', 'swe_atlas_qna']).describe('Task type.'),
    stage: StageSchema,
    complexity: ComplexitySchema.nullable().describe('Complexity group, or null.'),
    plannedRuns: z.number().int().nullable().describe('Planned repeat count, or null.'),
    runCount: z.number().int().describe('Runs stored for the task, baseline and miner.'),
    baselineRuns: z.number().int().describe('Baseline runs stored.'),
    criteriaCount: z.number().int().describe('Rubric criteria (0 for non-QnA tasks).'),
  }),
);

export const TaskListSchema = named(
  'TaskList',
  'The tasks of a competition.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    tasks: z.array(TaskSchema).describe('Tasks by id.'),
  }),
);
