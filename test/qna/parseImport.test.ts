// The whole import: reader failures and row problems come back as one list of problems.
import { describe, expect, it } from 'vitest';
import { parseQnaImport } from '../../src/qna/index.js';
import { jsonlRows, parquetBytes, toJsonl } from './fixtures.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('parseQnaImport', () => {
  it('turns a truncated Parquet file into a file-level problem, not a crash', async () => {
    const bytes = parquetBytes();
    const result = await parseQnaImport(bytes.slice(0, bytes.length >> 1), 'parquet');
    expect(result).toEqual({
      ok: false,
      problems: [{ row: null, field: 'file', message: expect.stringMatching(/Parquet/) }],
    });
  });

  it('numbers JSON Lines problems by line, so blank lines do not shift them', async () => {
    const [first, second] = jsonlRows();
    const bad = { ...second, language: 'rust' };
    const body = `${JSON.stringify(first)}\n\n${JSON.stringify(bad)}\n`;
    expect(await parseQnaImport(text(body), 'jsonl')).toEqual({
      ok: false,
      problems: [{ row: 3, field: 'language', message: 'must be one of go, python, c, ts' }],
    });
  });

  it('reports a non-JSON line together with the bad rows around it, in line order', async () => {
    const rows = jsonlRows().slice(0, 3);
    rows[2] = { ...rows[2], rubric: 'not json' };
    const lines = rows.map((r) => JSON.stringify(r));
    lines.splice(1, 0, '{"task_id": "6905333b74f2');
    const result = await parseQnaImport(text(lines.join('\n')), 'jsonl');
    expect(result).toEqual({
      ok: false,
      problems: [
        { row: 2, field: 'line', message: expect.stringMatching(/not valid JSON/) },
        { row: 4, field: 'rubric', message: 'is not valid JSON' },
      ],
    });
  });

  it('accepts a JSON Lines file with Windows line endings and no final newline', async () => {
    const body = jsonlRows()
      .slice(0, 2)
      .map((r) => JSON.stringify(r))
      .join('\r\n');
    expect(await parseQnaImport(text(body), 'jsonl')).toMatchObject({ ok: true, tasks: { length: 2 } });
  });

  it.each([
    ['an empty JSON Lines file', text(''), 'jsonl' as const, 'holds no rows'],
    ['a JSON Lines file of blank lines', text('\n  \n'), 'jsonl' as const, 'holds no rows'],
    ['bytes that are not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'jsonl' as const, 'is not valid UTF-8 text'],
  ])('refuses %s as a whole', async (_name, bytes, format, message) => {
    expect(await parseQnaImport(bytes, format)).toEqual({
      ok: false,
      problems: [{ row: null, field: 'file', message }],
    });
  });

  it('accepts a one-row JSON Lines file', async () => {
    const row = jsonlRows()[5]!;
    const result = await parseQnaImport(toJsonl([row]), 'jsonl');
    expect(result).toMatchObject({ ok: true, tasks: [{ id: row['task_id'] }] });
  });
});
