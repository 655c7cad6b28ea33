// The field rules of a SWE-Atlas QnA task, one home for both ways a task arrives: the JSON task
// upsert (src/schemas/tasks.ts) and, by hand, the Parquet / JSON Lines import (rowCheck.ts).
import { z } from 'zod';
import { textProblem } from '../unicode.js';
import { NOTHING_AFTER_NUMBERING, showsJudgeNothing } from './judgeTitle.js';
import { COMMIT_PATTERN, CRITERION_ID_PATTERN, MAX_FIELD_LENGTH, REPOSITORY_PATTERN } from './types.js';

const typeError = (expected: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null ? 'is required' : `must be ${expected}`;

/** A string that stored text can hold (src/unicode.ts): every text field of a row is one of these. */
export const string = () =>
  z.string({ error: typeError('a string') }).check((ctx) => {
    const message = textProblem(ctx.value);
    if (message) ctx.issues.push({ code: 'custom', input: ctx.value, message });
  });

/** Non-blank text up to `max` characters; kept verbatim (no trimming). */
export const qnaText = (max: number) =>
  string()
    .max(max, { error: `must be at most ${max} characters` })
    .refine((s) => s.trim() !== '', { error: 'must not be empty' });

/**
 * A criterion's title: text, and something left of it once its numbering goes (`1.1:` alone would
 * show the judge an empty criterion).
 */
export const criterionTitle = (max: number) =>
  qnaText(max).refine((s) => !showsJudgeNothing(s), { error: NOTHING_AFTER_NUMBERING });

export const matching = (pattern: RegExp, what: string) => string().regex(pattern, { error: `must be ${what}` });

export const repositoryField = () =>
  matching(REPOSITORY_PATTERN, 'a GitHub owner/name').max(MAX_FIELD_LENGTH, {
    error: `must be at most ${MAX_FIELD_LENGTH} characters`,
  });
export const commitField = () => matching(COMMIT_PATTERN, '40 lowercase hex characters');
export const criterionIdField = () => matching(CRITERION_ID_PATTERN, '32 lowercase hex characters');
