// Parses and validates an import file on disk without holding its text: JSON Lines is read in
// chunks and checked a line at a time (constant memory besides the tasks); Parquet needs the
// whole file (its footer is at the end). Tasks go to `onTasks` in batches as they are validated,
// and the read waits for what `onTasks` returns: the caller may store them as they come, in a
// transaction it commits only when the whole file turned out valid, or keep nothing and read the
// file again.
import { createReadStream, readFileSync } from 'node:fs';
import type { QnaImportFormat } from './parseImport.js';
import type { QnaProblem } from './problems.js';
import type { QnaTask } from './types.js';
import { validateQnaRows } from './validateRows.js';

export type ParseFileResult = { ok: true; rows: number } | { ok: false; problems: QnaProblem[]; more: number };

/** Problems kept; beyond this only their count. */
const MAX_PROBLEMS = 1000;
/** Tasks per message to the main thread: small enough that receiving one never stalls it for long. */
const BATCH = 64;
/**
 * Bytes read at a time. Each read is decoded and split into lines, so its text exists two or three
 * times over for a moment; at 64 KiB those strings stay under V8's large-object size (128 KiB) and
 * die young. Larger reads land in the large-object space, which only a full collection frees, and
 * the import worker's heap, so the server's peak RSS during an import, grows with them.
 */
const READ_BYTES = 64 * 1024;

export async function parseQnaFile(
  path: string,
  format: QnaImportFormat,
  onTasks: (tasks: QnaTask[]) => void | Promise<void>,
): Promise<ParseFileResult> {
  if (format === 'parquet') {
    // Loaded for a Parquet file only: the import worker that reads JSON Lines never holds the
    // Parquet reader's modules (hyparquet, some MB of the worker's memory).
    const { parseQnaImport } = await import('./parseImport.js');
    const parsed = await parseQnaImport(readFileSync(path), 'parquet');
    if (!parsed.ok)
      return {
        ok: false,
        problems: parsed.problems.slice(0, MAX_PROBLEMS),
        more: Math.max(0, parsed.problems.length - MAX_PROBLEMS),
      };
    for (let i = 0; i < parsed.tasks.length; i += BATCH) await onTasks(parsed.tasks.slice(i, i + BATCH));
    return { ok: true, rows: parsed.tasks.length };
  }
  return parseJsonLinesFile(path, onTasks);
}

async function parseJsonLinesFile(
  path: string,
  onTasks: (tasks: QnaTask[]) => void | Promise<void>,
): Promise<ParseFileResult> {
  const problems: QnaProblem[] = [];
  let more = 0;
  const problem = (p: QnaProblem) => (problems.length < MAX_PROBLEMS ? problems.push(p) : more++);
  const firstLineOf = new Map<string, number>();
  let batch: QnaTask[] = [];
  /** Full batches of the chunk being read, handed on once its lines are checked. */
  const full: QnaTask[][] = [];
  let rows = 0;
  let lineNo = 0;

  const line = (raw: string) => {
    lineNo++;
    const text = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (text.trim() === '') return;
    rows++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return problem({ row: lineNo, field: 'line', message: `not valid JSON (${(error as Error).message})` });
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return problem({ row: lineNo, field: 'line', message: 'expected a JSON object' });
    const row = value as Record<string, unknown>;
    const checked = validateQnaRows([row]);
    if (!checked.ok) for (const p of checked.problems) problem({ ...p, row: lineNo });
    const id = row['task_id'];
    if (typeof id === 'string') {
      const first = firstLineOf.get(id);
      if (first === undefined) firstLineOf.set(id, lineNo);
      else problem({ row: lineNo, field: 'task_id', message: `repeats the task_id of line ${first}` });
    }
    // Once anything is wrong nothing will be stored: stop handing tasks on, keep checking.
    if (checked.ok && problems.length === 0) {
      batch.push(checked.tasks[0]!);
      if (batch.length === BATCH) {
        full.push(batch);
        batch = [];
      }
    }
  };

  // Split on the newline byte first, then decode each line: a newline is never part of a multi-byte
  // UTF-8 sequence, and a line that does not decode is named by its own number.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const lineOf = (bytes: Buffer): boolean => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      return false;
    }
    line(text.endsWith('\r') ? text.slice(0, -1) : text);
    return true;
  };
  const notUtf8 = (): ParseFileResult => ({
    ok: false,
    problems: [{ row: lineNo + 1, field: 'file', message: 'is not valid UTF-8 text' }],
    more: 0,
  });
  /** The bytes of the line being read, as they came (a line may span many reads). */
  let parts: Buffer[] = [];
  for await (const chunk of createReadStream(path, { highWaterMark: READ_BYTES })) {
    const bytes = chunk as Buffer;
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      const piece = bytes.subarray(start, nl);
      if (!lineOf(parts.length > 0 ? Buffer.concat([...parts, piece]) : piece)) return notUtf8();
      parts = [];
      start = nl + 1;
    }
    if (start < bytes.length) parts.push(bytes.subarray(start));
    for (const b of full.splice(0)) if (problems.length === 0) await onTasks(b);
  }
  if (parts.length > 0 && !lineOf(Buffer.concat(parts))) return notUtf8();
  if (problems.length > 0) return { ok: false, problems, more };
  if (rows === 0) return { ok: false, problems: [{ row: null, field: 'file', message: 'holds no rows' }], more: 0 };
  for (const b of full.splice(0)) await onTasks(b);
  if (batch.length > 0) await onTasks(batch);
  return { ok: true, rows };
}
