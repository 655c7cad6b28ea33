// Each rule of the row schema, pinned by breaking one field of a real row.
import { describe, expect, it } from 'vitest';
import { MAX_FIELD_LENGTH, MAX_PROMPT_LENGTH, MAX_TITLE_LENGTH, validateQnaRows } from '../../src/qna/index.js';
import { jsonlRows } from './fixtures.js';

type Row = Record<string, unknown>;
type Criterion = Record<string, unknown> & { annotations: Record<string, unknown> };

/** Real rows with a change to row 3 (index 2); `rubric` edits go through its parsed JSON. */
function breakRow(edit: (row: Row, rubric: Criterion[]) => void): Row[] {
  const rows = jsonlRows();
  const row = rows[2]!;
  const original = row['rubric'];
  const rubric = JSON.parse(original as string) as Criterion[];
  edit(row, rubric);
  if (row['rubric'] === original) row['rubric'] = JSON.stringify(rubric); // edited items, not the column
  return rows;
}

describe('validateQnaRows', () => {
  it('accepts the real rows', () => {
    expect(validateQnaRows(jsonlRows())).toMatchObject({ ok: true, tasks: { length: 124 } });
  });

  it('accepts no rows as no tasks (the empty rule lives in parseQnaImport)', () => {
    expect(validateQnaRows([])).toEqual({ ok: true, tasks: [] });
  });

  it.each<[string, (row: Row, rubric: Criterion[]) => void, string, RegExp]>([
    ['task_id not 24 hex', (r) => (r['task_id'] = 'ABCDEF0123456789abcdef01'), 'task_id', /24 lowercase hex/],
    ['missing prompt', (r) => delete r['prompt'], 'prompt', /is required/],
    ['blank reference answer', (r) => (r['reference_answer'] = ' \n '), 'reference_answer', /must not be empty/],
    ['prompt over the limit', (r) => (r['prompt'] = 'x'.repeat(MAX_PROMPT_LENGTH + 1)), 'prompt', /at most 200000/],
    ['category not a string', (r) => (r['category'] = 5), 'category', /must be a string/],
    // SQLite would store U+FFFD in its place: the stored task would differ from the file.
    ['a lone surrogate in the prompt', (r) => (r['prompt'] = 'why \ud800?'), 'prompt', /lone UTF-16 surrogate/],
    ['a NUL in the reference answer', (r) => (r['reference_answer'] = 'a\u0000b'), 'reference_answer', /NUL character/],
    [
      'docker image over the limit',
      (r) => (r['docker_image'] = 'x'.repeat(MAX_FIELD_LENGTH + 1)),
      'docker_image',
      /at most 512/,
    ],
    ['repository as a URL', (r) => (r['repository_url'] = 'https://github.com/a/b'), 'repository_url', /owner\/name/],
    ['repository climbing a directory', (r) => (r['repository_url'] = 'owner/..'), 'repository_url', /owner\/name/],
    [
      'bad commit hash',
      (r) => (r['repository_base_commit'] = 'be7e5cc6'),
      'repository_base_commit',
      /40 lowercase hex/,
    ],
    ['bad language', (r) => (r['language'] = 'rust'), 'language', /one of go, python, c, ts/],
    ['rubric not JSON', (r) => (r['rubric'] = '[{"id": '), 'rubric', /not valid JSON/],
    ['rubric not an array', (r) => (r['rubric'] = '{}'), 'rubric', /JSON array/],
    ['rubric empty', (r) => (r['rubric'] = '[]'), 'rubric', /at least one/],
    ['rubric as a nested value, not a string', (r, rb) => (r['rubric'] = rb), 'rubric', /must be a string/],
    ['criterion not an object', (r) => (r['rubric'] = '[1]'), 'rubric[0]', /must be an object/],
    [
      'duplicated criterion id',
      (_r, rb) => (rb[3]!['id'] = rb[1]!['id']),
      'rubric[3].id',
      /repeats the id of rubric\[1\]/,
    ],
    ['criterion id not 32 hex', (_r, rb) => (rb[0]!['id'] = 'c1'), 'rubric[0].id', /32 lowercase hex/],
    ['blank title', (_r, rb) => (rb[2]!['title'] = ''), 'rubric[2].title', /must not be empty/],
    [
      'title over the limit',
      (_r, rb) => (rb[2]!['title'] = 'x'.repeat(MAX_TITLE_LENGTH + 1)),
      'rubric[2].title',
      /at most 4000/,
    ],
    [
      'bad polarity',
      (_r, rb) => (rb[1]!.annotations['type'] = 'positive'),
      'rubric[1].annotations.type',
      /hli verifier/,
    ],
    [
      'bad importance',
      (_r, rb) => (rb[1]!.annotations['importance'] = 'nice to have'),
      'rubric[1].annotations.importance',
      /must have/,
    ],
    ['bad change value', (_r, rb) => (rb[0]!['change'] = 'reworded'), 'rubric[0].change', /null or one of stability/],
    [
      'original title not a string',
      (_r, rb) => (rb[0]!['original_title'] = 3),
      'rubric[0].original_title',
      /must be a string/,
    ],
  ])('rejects %s, naming row 3 and the field', (_name, edit, field, message) => {
    const result = validateQnaRows(breakRow(edit));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toContainEqual({ row: 3, field, message: expect.stringMatching(message) });
    expect(result.problems.every((p) => p.row === 3)).toBe(true);
  });

  it('names the second row of a repeated task id', () => {
    const rows = jsonlRows();
    rows[9]!['task_id'] = rows[4]!['task_id'];
    expect(validateQnaRows(rows)).toEqual({
      ok: false,
      problems: [{ row: 10, field: 'task_id', message: 'repeats the task_id of row 5' }],
    });
  });

  it('reports problems in every row, not just the first bad one', () => {
    const rows = jsonlRows();
    rows[0]!['language'] = 'rust';
    rows[123]!['repository_base_commit'] = 'nope';
    const result = validateQnaRows(rows);
    expect(result.ok ? [] : result.problems.map((p) => [p.row, p.field])).toEqual([
      [1, 'language'],
      [124, 'repository_base_commit'],
    ]);
  });

  it('defaults a missing original_title to the title and a missing change to null (upstream rows)', () => {
    const rows = breakRow((_r, rb) =>
      rb.forEach((c) => {
        delete c['original_title'];
        delete c['change'];
      }),
    );
    const result = validateQnaRows(rows);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    for (const c of result.tasks[2]!.rubric) expect(c).toMatchObject({ originalTitle: c.title, change: null });
  });

  it('maps a row to the camelCase task with polarity as positive/negative', () => {
    const result = validateQnaRows(jsonlRows().slice(0, 1));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.tasks[0]).toMatchObject({
      id: '6905333b74f22949d97ba998',
      repositoryUrl: 'Automattic/wp-calypso',
      repositoryBaseCommit: 'be7e5cc641622d153040491fd5625c6cb83e12eb',
      language: 'ts',
      category: 'Code Onboarding',
      dockerImage: 'ghcr.io/scaleapi/swe-atlas:swe_atlas_QnA_Automattic_wp-calypso_1.0',
      rubric: expect.arrayContaining([
        expect.objectContaining({ id: 'b3f120549708e7cefe56a25b7de3e55c', type: 'positive', importance: 'must have' }),
      ]),
    });
  });
});
