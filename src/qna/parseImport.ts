// One entry point for an uploaded SWE-Atlas-QnA file: read it, validate it, and report
// reader failures and row problems in the same {row, field, message} shape.
import { QnaImportError, type QnaProblem } from './problems.js';
import { readJsonLines, readParquetRows } from './readRows.js';
import type { QnaTask } from './types.js';
import { validateQnaRows } from './validateRows.js';

export type QnaImportFormat = 'parquet' | 'jsonl';

export type QnaImportResult = { ok: true; tasks: QnaTask[] } | { ok: false; problems: QnaProblem[] };

/**
 * Parses a whole import. Rows are numbered from 1: for Parquet the row position, for JSON
 * Lines the line number (so blank lines do not shift what an editor shows). A file with no
 * rows is refused: an empty upload is far more likely a mistake than an intent.
 */
export async function parseQnaImport(bytes: Uint8Array, format: QnaImportFormat): Promise<QnaImportResult> {
  let rows: Record<string, unknown>[];
  let rowNumbers: number[] | null = null; // null: row n is the n-th row
  const problems: QnaProblem[] = [];
  try {
    if (format === 'parquet') {
      rows = await readParquetRows(bytes);
    } else {
      const read = readJsonLines(decodeUtf8(bytes));
      rows = read.rows;
      rowNumbers = read.lines;
      problems.push(...read.errors);
    }
  } catch (error) {
    if (error instanceof QnaImportError) return { ok: false, problems: error.problems };
    throw error;
  }

  const validation = validateQnaRows(rows);
  if (!validation.ok) {
    for (const p of validation.problems) problems.push({ ...p, row: rowNumbers?.[p.row - 1] ?? p.row });
  }
  if (problems.length > 0) {
    // Line errors and row problems interleave by position; sort is stable within a row.
    return { ok: false, problems: problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0)) };
  }
  if (rows.length === 0) return { ok: false, problems: [{ row: null, field: 'file', message: 'holds no rows' }] };
  return { ok: true, tasks: validation.ok ? validation.tasks : [] };
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new QnaImportError([{ row: null, field: 'file', message: 'is not valid UTF-8 text' }]);
  }
}
