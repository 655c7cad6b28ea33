// The import's hand-written row check (src/qna/rowCheck.ts) against the zod schema it replaced
// (./rowSchema.ts): on real rows with generated damage, both find the same problems (path and
// message, in order) and pass the same rows with the same fields.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkQnaRow, type QnaRow } from '../../src/qna/rowCheck.js';
import { MAX_FIELD_LENGTH, MAX_TITLE_LENGTH } from '../../src/qna/types.js';
import { jsonlRows } from './fixtures.js';
import { qnaRowSchema, type QnaRow as SchemaRow } from './rowSchema.js';

type Row = Record<string, unknown>;

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The check's row type is the schema's output type (a type error here when they part). */
const rowTypesAgree: Same<QnaRow, SchemaRow> = true;

/** What zod says of a row, in the check's terms. */
function oracle(row: Row) {
  const parsed = qnaRowSchema.safeParse(row);
  if (parsed.success) return { ok: true as const, row: parsed.data };
  return { ok: false as const, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) };
}

const ROW_KEYS = [
  'task_id',
  'prompt',
  'reference_answer',
  'repository_url',
  'repository_base_commit',
  'language',
  'category',
  'rubric',
  'docker_image',
] as const;
const CRITERION_KEYS = ['id', 'title', 'annotations', 'original_title', 'change'] as const;

/** Values a field may be given: each kind of wrong, and near misses of the right ones. */
const value = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    '',
    '  \n ',
    5,
    true,
    [],
    ['a'],
    {},
    { length: 5 },
    { length: 'x' },
    { length: 1e9 },
    'x'.repeat(MAX_FIELD_LENGTH + 1),
    ' '.repeat(MAX_TITLE_LENGTH + 1),
    `\u0000${' '.repeat(MAX_TITLE_LENGTH + 1)}`,
    'a\u0000b',
    'why \ud800?',
    '1.1:',
    ' 2. 3:  ',
    '\udc00',
    'abcdef0123456789abcdef01',
    'ABCDEF0123456789abcdef01',
    '0123456789abcdef0123456789abcdef',
    '0123456789abcdef0123456789abcdef01234567',
    'owner/name',
    '../name',
    'owner/..',
    'go',
    'ts',
    'rust',
    'positive hli verifier',
    'negative hli verifier',
    'must have',
    'stability',
    'precision',
    'scale-correction',
    'other',
  ),
  fc.string({ maxLength: 8 }),
  fc.integer(),
);

/** A rubric column: the row's own criteria damaged, or something else entirely. */
function rubricOf(original: unknown[]) {
  const criterionEdit = fc.record({
    at: fc.nat(),
    key: fc.constantFrom<string>(...CRITERION_KEYS, 'annotations.type', 'annotations.importance'),
    to: value,
    remove: fc.boolean(),
  });
  return fc
    .oneof(
      { weight: 6, arbitrary: fc.array(criterionEdit, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('not json', '{}', '[]', '5', 'null', '[1, "a", null, []]') },
      { weight: 1, arbitrary: fc.constant<'dup'>('dup') },
    )
    .map((edit): unknown => {
      if (!Array.isArray(edit)) {
        if (edit !== 'dup') return edit;
        const copy = structuredClone(original) as Row[];
        if (copy.length > 1) copy[copy.length - 1]!['id'] = copy[0]!['id'];
        copy.push(copy[0]!);
        return JSON.stringify(copy);
      }
      const copy = structuredClone(original) as Row[];
      for (const e of edit) {
        const c = copy[e.at % copy.length];
        if (!c) continue;
        const [first, second] = e.key.split('.') as [string, string | undefined];
        const target = second ? (c[first] as Row | undefined) : c;
        if (typeof target !== 'object' || target === null) continue;
        const key = second ?? first;
        if (e.remove) delete target[key];
        // A copy: `value`'s objects are constants shared by every draw, so one put at `annotations` and
        // again at `annotations.importance` made a circle (JSON.stringify threw, CI 2026-12-07), and an
        // edit inside one changed the constant for the draws after it.
        else target[key] = structuredClone(e.to);
      }
      return JSON.stringify(copy);
    });
}

describe('checkQnaRow', () => {
  const rows = jsonlRows();

  it('passes every real row as zod did, with the same fields', () => {
    expect(rowTypesAgree).toBe(true);
    for (const row of rows) {
      const mine = checkQnaRow(row);
      const zod = oracle(row);
      expect(mine.ok).toBe(true);
      expect(mine).toEqual(zod);
    }
  });

  it('finds the problems zod found, in its order, on damaged rows', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: rows.length - 1 }),
        fc.array(fc.record({ key: fc.constantFrom(...ROW_KEYS), to: value, remove: fc.boolean() }), {
          maxLength: 4,
        }),
        (at, edits) => {
          const row = { ...rows[at]! };
          for (const e of edits) {
            if (e.remove) delete row[e.key];
            else row[e.key] = e.to;
          }
          expect(checkQnaRow(row)).toEqual(oracle(row));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds the problems zod found in damaged rubrics', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: rows.length - 1 }).chain((at) =>
          rubricOf(JSON.parse(rows[at]!['rubric'] as string) as unknown[]).map((rubric) => ({
            ...rows[at]!,
            rubric,
          })),
        ),
        (row) => {
          expect(checkQnaRow(row)).toEqual(oracle(row));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
