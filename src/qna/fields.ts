// The field rules of a SWE-Atlas QnA task, one home for both ways a task arrives: the JSON task
// upsert (src/schemas/tasks.ts) and the Parquet / JSON Lines import (rowSchema.ts).
import { z } from 'zod';
import { textProblem } from '../unicode.js';
import { MAX_FIELD_LENGTH } from './types.js';

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

export const matching = (pattern: RegExp, what: string) => string().regex(pattern, { error: `must be ${what}` });

// GitHub owner/name; "." and ".." are refused as either part so the value can never act
// as a path segment that climbs out of a directory or URL.
const REPOSITORY = /^(?!\.\.?\/)[A-Za-z0-9_.-]+\/(?!\.\.?$)[A-Za-z0-9_.-]+$/;

export const repositoryField = () =>
  matching(REPOSITORY, 'a GitHub owner/name').max(MAX_FIELD_LENGTH, {
    error: `must be at most ${MAX_FIELD_LENGTH} characters`,
  });
export const commitField = () => matching(/^[0-9a-f]{40}$/, '40 lowercase hex characters');
export const criterionIdField = () => matching(/^[0-9a-f]{32}$/, '32 lowercase hex characters');
