// The zod schema of one SWE-Atlas-QnA-AA row (snake_case columns, rubric as a JSON string) that
// src/qna/rowCheck.ts replaced in the import (so the import worker need not load zod): kept here as
// the oracle its problems are compared with (rowCheck.properties.test.ts), built from the same
// field rules as the JSON task upsert (src/qna/fields.ts).
import { z } from 'zod';
import {
  commitField,
  criterionIdField,
  criterionTitle,
  matching,
  qnaText,
  repositoryField,
  string,
} from '../../src/qna/fields.js';
import {
  CRITERION_CHANGES,
  MAX_FIELD_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_REFERENCE_ANSWER_LENGTH,
  MAX_TITLE_LENGTH,
  QNA_LANGUAGES,
  TASK_ID_PATTERN,
} from '../../src/qna/types.js';

const typeError = (expected: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null ? 'is required' : `must be ${expected}`;

const text = qnaText;

const criterionSchema = z.object(
  {
    id: criterionIdField(),
    title: criterionTitle(MAX_TITLE_LENGTH),
    annotations: z.object(
      {
        type: z.enum(['positive hli verifier', 'negative hli verifier'], {
          error: typeError('"positive hli verifier" or "negative hli verifier"'),
        }),
        importance: z.literal('must have', { error: typeError('"must have"') }),
      },
      { error: typeError('an object') },
    ),
    // Scale's upstream rows have neither key: missing means "unchanged".
    original_title: string()
      .max(MAX_TITLE_LENGTH, { error: `must be at most ${MAX_TITLE_LENGTH} characters` })
      .nullish(),
    change: z.enum(CRITERION_CHANGES, { error: typeError(`null or one of ${CRITERION_CHANGES.join(', ')}`) }).nullish(),
  },
  { error: typeError('an object') },
);

const criteriaSchema = z
  .array(criterionSchema, { error: 'must be a JSON array of criteria' })
  .min(1, { error: 'must hold at least one criterion' })
  .superRefine(
    (criteria, ctx) => {
      const seen = new Map<unknown, number>();
      criteria.forEach((criterion: unknown, index) => {
        // Items may be the raw, invalid input here (see `when` below), hence the care.
        const id = typeof criterion === 'object' && criterion !== null ? (criterion as { id?: unknown }).id : undefined;
        if (typeof id !== 'string') return;
        const first = seen.get(id);
        if (first === undefined) seen.set(id, index);
        else
          ctx.addIssue({
            code: 'custom',
            input: id,
            path: [index, 'id'],
            message: `repeats the id of rubric[${first}]`,
          });
      });
    },
    // Run even when another criterion failed, so a duplicate id is not hidden by a typo.
    { when: (payload) => Array.isArray(payload.value) },
  );

const rubricSchema = string()
  .transform((source, ctx): unknown => {
    try {
      return JSON.parse(source);
    } catch {
      ctx.issues.push({ code: 'custom', input: source, message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(criteriaSchema);

export const qnaRowSchema = z.object({
  task_id: matching(TASK_ID_PATTERN, '24 lowercase hex characters'),
  prompt: text(MAX_PROMPT_LENGTH),
  reference_answer: text(MAX_REFERENCE_ANSWER_LENGTH),
  repository_url: repositoryField(),
  repository_base_commit: commitField(),
  language: z.enum(QNA_LANGUAGES, { error: typeError(`one of ${QNA_LANGUAGES.join(', ')}`) }),
  category: text(MAX_FIELD_LENGTH),
  rubric: rubricSchema,
  docker_image: text(MAX_FIELD_LENGTH),
});

export type QnaRow = z.output<typeof qnaRowSchema>;
