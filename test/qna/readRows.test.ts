import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { normalizeParquetValue, QnaImportError, readJsonLines, readParquetRows } from '../../src/qna/index.js';
import { prng } from '../support/prng.js';
import { parquetBytes } from './fixtures.js';

async function parquetError(bytes: Uint8Array): Promise<QnaImportError> {
  const error = await readParquetRows(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QnaImportError);
  return error as QnaImportError;
}

describe('readParquetRows', () => {
  it('reads every row of the real file as plain string columns', async () => {
    const rows = await readParquetRows(parquetBytes());
    expect(rows).toHaveLength(124);
    for (const value of Object.values(rows[0] ?? {})) expect(typeof value).toBe('string');
  });

  it('reads a Uint8Array that is a view into a larger buffer (as Node Buffers often are)', async () => {
    const real = parquetBytes();
    const pool = new Uint8Array(real.length + 200).fill(7);
    pool.set(real, 100);
    expect(await readParquetRows(pool.subarray(100, 100 + real.length))).toHaveLength(124);
  });

  it.each([
    ['a truncated file (first half of the bytes)', (b: Uint8Array) => b.slice(0, Math.floor(b.length / 2))],
    ['an empty file', () => new Uint8Array(0)],
    ['text that is not Parquet', () => new TextEncoder().encode('{"task_id": "x"}\n')],
    [
      'a file whose data pages are overwritten',
      (b: Uint8Array) => b.map((x, i) => (i > 100 && i < b.length - 5000 && i % 7 === 0 ? x ^ 0xff : x)),
    ],
  ])('rejects %s with a QnaImportError on the whole file', async (_name, damage) => {
    const error = await parquetError(damage(parquetBytes()));
    expect(error.problems).toEqual([
      { row: null, field: 'file', message: expect.stringMatching(/^not a readable Parquet file/) },
    ]);
  });
});

describe('readParquetRows on damaged copies of the real file', () => {
  it('refuses a footer naming an unknown column while another column fails to decode (no unhandled rejection)', async () => {
    // hyparquet alone leaks the failing column's rejection here, which would end the server.
    const bytes = parquetBytes();
    const meta = parquetMetadata(bytes.buffer as ArrayBuffer);
    const answers = meta.row_groups[0]!.columns.find(
      (c) => c.meta_data?.path_in_schema[0] === 'reference_answer',
    )!.meta_data!;
    const middle = Number(answers.data_page_offset) + Math.floor(Number(answers.total_compressed_size) / 2);
    for (let i = middle; i < middle + 64; i++) bytes[i] = 0xff;
    const name = new TextEncoder().encode('repository_base_commit');
    const at = lastIndexOf(bytes, name);
    bytes[at + 'repository_'.length] = 'x'.charCodeAt(0);
    expect((await parquetError(bytes)).problems[0]?.message).toMatch(/column chunks do not match the schema/);
    await new Promise((resolve) => setTimeout(resolve, 20)); // let a leaked rejection surface
  });

  it('returns all 124 rows or a QnaImportError for 150 seeded random damages, each quickly', async () => {
    const real = parquetBytes();
    const random = prng(12345).below;
    for (let i = 0; i < 150; i++) {
      const bytes = i % 3 === 0 ? real.slice(0, random(real.length)) : real.slice();
      // Every third copy is cut short; the others get byte edits, half of them in the footer.
      for (let k = 0; i % 3 !== 0 && k < 1 + random(8); k++) {
        bytes[i % 3 === 1 ? random(bytes.length) : bytes.length - 1 - random(1200)] = random(256);
      }
      const started = performance.now();
      const outcome = await readParquetRows(bytes).then(
        (rows) => rows.length,
        (e: unknown) => e,
      );
      if (typeof outcome === 'number') expect(outcome).toBe(124);
      else expect(outcome).toBeInstanceOf(QnaImportError);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});

function lastIndexOf(haystack: Uint8Array, needle: Uint8Array): number {
  for (let i = haystack.length - needle.length; i >= 0; i--) {
    if (needle.every((b, j) => haystack[i + j] === b)) return i;
  }
  throw new Error('not found');
}

describe('normalizeParquetValue', () => {
  it.each([
    ['a safe bigint becomes a number', 42n, 42],
    ['an unsafe bigint becomes a decimal string', 2n ** 60n, '1152921504606846976'],
    ['bytes become UTF-8 text', new TextEncoder().encode('go'), 'go'],
    ['a date becomes an ISO string', new Date(Date.UTC(2026, 6, 16)), '2026-07-16T00:00:00.000Z'],
    ['nested values are converted too', { a: [1n, null] }, { a: [1, null] }],
    ['strings and null pass through', 'x', 'x'],
  ])('%s', (_name, input, expected) => {
    expect(normalizeParquetValue(input)).toEqual(expected);
  });
});

describe('readJsonLines', () => {
  it('skips blank lines and remembers the line number of each row', () => {
    const result = readJsonLines('{"a":1}\n\n   \r\n{"a":2}\r\n');
    expect(result).toEqual({ rows: [{ a: 1 }, { a: 2 }], lines: [1, 4], errors: [] });
  });

  it('ignores a UTF-8 byte order mark', () => {
    expect(readJsonLines('\uFEFF{"a":1}').rows).toEqual([{ a: 1 }]);
  });

  it.each([
    ['invalid JSON', '{"a":', /^not valid JSON/],
    ['an array', '[1, 2]', /^expected a JSON object$/],
    ['a string', '"row"', /^expected a JSON object$/],
    ['null', 'null', /^expected a JSON object$/],
  ])('reports a line holding %s by its line number and keeps the other rows', (_name, line, message) => {
    const result = readJsonLines(`{"a":1}\n\n${line}\n{"a":2}`);
    expect(result.rows).toEqual([{ a: 1 }, { a: 2 }]);
    expect(result.errors).toEqual([{ row: 3, field: 'line', message: expect.stringMatching(message) }]);
  });
});
