// One SWE-Atlas-QnA-AA row as it appears in the file (snake_case columns, rubric as a JSON string),
// checked by hand rather than by a zod schema: the import worker validates every row, and without
// zod it starts 6 MB smaller (zod's modules and compiled code; 23.6 against 29.5 MB loaded and idle)
// and its heap grows over less during a parse, which the server's peak memory during an import
// counts (docs/bench/README.md, 2026-12-06 "the import worker without zod"). The problems are
// zod's, field for field, message for message and in the same order: the schema this replaced is
// kept as the tests' oracle (test/qna/rowSchema.ts), and test/qna/rowCheck.properties.test.ts
// compares the two on generated rows. The field rules are those of src/qna/fields.ts (the JSON task
// upsert's zod fields): text that stored text can hold, non-blank, within its bound.
// Field names in problems are the file's column names, because that is what the person fixing
// the file sees.
import { textProblem } from '../unicode.js';
import { NOTHING_AFTER_NUMBERING, showsJudgeNothing } from './judgeTitle.js';
import {
  COMMIT_PATTERN,
  CRITERION_CHANGES,
  CRITERION_ID_PATTERN,
  MAX_FIELD_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_REFERENCE_ANSWER_LENGTH,
  MAX_TITLE_LENGTH,
  QNA_LANGUAGES,
  REPOSITORY_PATTERN,
  TASK_ID_PATTERN,
  type CriterionChange,
  type QnaLanguage,
} from './types.js';

/** A row that passed: its fields as read (columns beyond these kept; a criterion's optional keys may be missing). */
export interface QnaRow {
  task_id: string;
  prompt: string;
  reference_answer: string;
  repository_url: string;
  repository_base_commit: string;
  language: QnaLanguage;
  category: string;
  rubric: QnaRowCriterion[];
  docker_image: string;
}
export interface QnaRowCriterion {
  id: string;
  title: string;
  annotations: { type: 'positive hli verifier' | 'negative hli verifier'; importance: 'must have' };
  original_title?: string | null;
  change?: CriterionChange | null;
}

/** A problem: where (keys and array positions from the row down) and what. */
export interface RowIssue {
  path: (string | number)[];
  message: string;
}
type Path = (string | number)[];

const absent = (v: unknown) => v === undefined || v === null;
const typeError = (v: unknown, expected: string) => (absent(v) ? 'is required' : `must be ${expected}`);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A length bound, a pattern, or the non-blank rule: checked in the order given. */
type Rule = { max: number } | { pattern: RegExp; what: string } | 'nonBlank' | 'judgeSees';

/**
 * A text field, as zod checks its string: the type, then whether stored text can hold it (either
 * failing stops the pattern and non-blank rules), then each rule in order, every one that fails
 * named. A length bound is checked on anything with a length (zod's own rule), even after a
 * failure: an array or object given for a text field gets both problems.
 */
function text(v: unknown, path: Path, rules: Rule[], out: RowIssue[]): boolean {
  const before = out.length;
  let stopped = true;
  if (typeof v !== 'string') out.push({ path, message: typeError(v, 'a string') });
  else {
    const bad = textProblem(v);
    if (bad) out.push({ path, message: bad });
    else stopped = false;
  }
  for (const rule of rules) {
    let message: string | null = null;
    if (typeof rule === 'object' && 'max' in rule) {
      const length = absent(v) ? undefined : (v as { length?: unknown }).length;
      if (length !== undefined && !((length as number) <= rule.max)) message = `must be at most ${rule.max} characters`;
    } else if (stopped) continue;
    else if (rule === 'nonBlank') message = (v as string).trim() === '' ? 'must not be empty' : null;
    else if (rule === 'judgeSees') message = showsJudgeNothing(v as string) ? NOTHING_AFTER_NUMBERING : null;
    else message = rule.pattern.test(v as string) ? null : `must be ${rule.what}`;
    if (message) out.push({ path, message });
  }
  return out.length === before;
}

const qnaText = (max: number): Rule[] => [{ max }, 'nonBlank'];
const matching = (pattern: RegExp, what: string): Rule => ({ pattern, what });
const REPOSITORY = matching(REPOSITORY_PATTERN, 'a GitHub owner/name');
const TASK_ID = matching(TASK_ID_PATTERN, '24 lowercase hex characters');
const COMMIT = matching(COMMIT_PATTERN, '40 lowercase hex characters');
const CRITERION_ID = matching(CRITERION_ID_PATTERN, '32 lowercase hex characters');

function oneOf<T>(v: unknown, values: readonly T[], expected: string, path: Path, out: RowIssue[]): void {
  if (!values.includes(v as T)) out.push({ path, message: typeError(v, expected) });
}

const POLARITIES = ['positive hli verifier', 'negative hli verifier'] as const;

function criterion(v: unknown, path: Path, out: RowIssue[]): void {
  if (!isObject(v)) {
    out.push({ path, message: typeError(v, 'an object') });
    return;
  }
  text(v['id'], [...path, 'id'], [CRITERION_ID], out);
  text(v['title'], [...path, 'title'], [...qnaText(MAX_TITLE_LENGTH), 'judgeSees'], out);
  const a = v['annotations'];
  const at = [...path, 'annotations'];
  if (!isObject(a)) out.push({ path: at, message: typeError(a, 'an object') });
  else {
    oneOf(a['type'], POLARITIES, '"positive hli verifier" or "negative hli verifier"', [...at, 'type'], out);
    oneOf(a['importance'], ['must have'], '"must have"', [...at, 'importance'], out);
  }
  // Scale's upstream rows have neither key: missing means "unchanged".
  const original = v['original_title'];
  if (!absent(original)) text(original, [...path, 'original_title'], [{ max: MAX_TITLE_LENGTH }], out);
  const change = v['change'];
  if (!absent(change))
    oneOf(change, CRITERION_CHANGES, `null or one of ${CRITERION_CHANGES.join(', ')}`, [...path, 'change'], out);
}

/** The rubric column: a JSON string holding a non-empty array of criteria with distinct ids; parsed, or null. */
function rubric(v: unknown, out: RowIssue[]): QnaRowCriterion[] | null {
  const path: Path = ['rubric'];
  if (!text(v, path, [], out)) return null;
  let criteria: unknown;
  try {
    criteria = JSON.parse(v as string);
  } catch {
    out.push({ path, message: 'is not valid JSON' });
    return null;
  }
  if (!Array.isArray(criteria)) {
    out.push({ path, message: 'must be a JSON array of criteria' });
    return null;
  }
  const before = out.length;
  criteria.forEach((c: unknown, index) => criterion(c, [...path, index], out));
  if (criteria.length === 0) out.push({ path, message: 'must hold at least one criterion' });
  // Even when another criterion failed, so a duplicate id is not hidden by a typo.
  const seen = new Map<string, number>();
  criteria.forEach((c: unknown, index) => {
    const id = typeof c === 'object' && c !== null ? (c as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, index);
    else out.push({ path: [...path, index, 'id'], message: `repeats the id of rubric[${first}]` });
  });
  return out.length === before ? (criteria as QnaRowCriterion[]) : null;
}

/** Checks one row: its fields in column order, every problem of each. */
export function checkQnaRow(
  row: Record<string, unknown>,
): { ok: true; row: QnaRow } | { ok: false; issues: RowIssue[] } {
  const out: RowIssue[] = [];
  text(row['task_id'], ['task_id'], [TASK_ID], out);
  text(row['prompt'], ['prompt'], qnaText(MAX_PROMPT_LENGTH), out);
  text(row['reference_answer'], ['reference_answer'], qnaText(MAX_REFERENCE_ANSWER_LENGTH), out);
  text(row['repository_url'], ['repository_url'], [REPOSITORY, { max: MAX_FIELD_LENGTH }], out);
  text(row['repository_base_commit'], ['repository_base_commit'], [COMMIT], out);
  oneOf(row['language'], QNA_LANGUAGES, `one of ${QNA_LANGUAGES.join(', ')}`, ['language'], out);
  text(row['category'], ['category'], qnaText(MAX_FIELD_LENGTH), out);
  const criteria = rubric(row['rubric'], out);
  text(row['docker_image'], ['docker_image'], qnaText(MAX_FIELD_LENGTH), out);
  if (out.length > 0 || !criteria) return { ok: false, issues: out };
  return { ok: true, row: { ...(row as unknown as QnaRow), rubric: criteria } };
}
