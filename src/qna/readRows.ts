// Turn uploaded bytes into plain row objects. No validation of the row schema here:
// that is validateRows.ts, so both formats go through exactly the same rules.
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { checkParquetLayout } from './parquetLayout.js';
import { QnaImportError, type QnaProblem } from './problems.js';
import { snappyDecompress } from './snappy.js';

/**
 * Reads every row of a Parquet file held in memory. Throws QnaImportError (never anything
 * else) when the file is truncated, corrupt or uses a codec we cannot decode (hyparquet
 * without hyparquet-compressors reads uncompressed and Snappy files only).
 */
export async function readParquetRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  // A Node Buffer is often a view into a larger shared pool: copy exactly our bytes,
  // or hyparquet would look for the footer at the end of someone else's data.
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let rows: Record<string, unknown>[];
  try {
    const metadata = parquetMetadata(buffer);
    const expectedRows = checkParquetLayout(metadata);
    rows = await parquetReadObjects({ file: buffer, metadata, compressors: { SNAPPY: snappyDecompress } });
    if (rows.length !== expectedRows) throw new Error(`read ${rows.length} rows, the footer says ${expectedRows}`);
  } catch (error) {
    // hyparquet reports damage with plain Error or RangeError ("Offset is outside the bounds").
    const detail = error instanceof Error ? error.message : String(error);
    throw new QnaImportError([{ row: null, field: 'file', message: `not a readable Parquet file (${detail})` }]);
  }
  return rows.map((row) => normalizeParquetValue(row) as Record<string, unknown>);
}

/**
 * Turns what hyparquet returns for non-string columns into JSON-like values, so a Parquet
 * row and a JSON Lines row look alike to the validator. hyparquet gives INT64 as bigint,
 * binary as Uint8Array and timestamps as Date; the real file has UTF-8 string columns only.
 */
export function normalizeParquetValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(normalizeParquetValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeParquetValue(v)]));
  }
  return value;
}

export interface JsonLinesResult {
  rows: Record<string, unknown>[];
  /** `lines[i]` is the 1-based line number `rows[i]` came from (blank lines are skipped). */
  lines: number[];
  errors: QnaProblem[];
}

/** Splits JSON Lines text into objects; every line that is not a JSON object is an error. */
export function readJsonLines(text: string): JsonLinesResult {
  const result: JsonLinesResult = { rows: [], lines: [], errors: [] };
  // A UTF-8 byte order mark (some editors on Windows add one) would make line 1 invalid JSON.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const lineNo = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      result.errors.push({ row: lineNo, field: 'line', message: `not valid JSON (${detail})` });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      result.errors.push({ row: lineNo, field: 'line', message: 'expected a JSON object' });
      return;
    }
    result.rows.push(value as Record<string, unknown>);
    result.lines.push(lineNo);
  });
  return result;
}
