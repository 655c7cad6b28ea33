// The copy's shared parts (src/tools/copy/index.ts): its endpoints, the tables it carries in the
// order it carries them, the form of a value in transit, and the statements both engines read with.
import { schemaTables, type Column, type TableSpec } from '../../db/tables.js';

export type { Column };

export type Endpoint = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

/** A postgres:// (or postgresql://) URL is PostgreSQL; anything else is a SQLite file path. */
export function parseEndpoint(value: string): Endpoint {
  return /^postgres(ql)?:\/\//i.test(value) ? { engine: 'postgres', url: value } : { engine: 'sqlite', path: value };
}

/** How an endpoint is named in messages: a URL without its password. */
export function describeEndpoint(e: Endpoint): string {
  if (e.engine === 'sqlite') return e.path;
  try {
    const url = new URL(e.url);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** A refusal or failure the command line shows as a message, not a stack trace. */
export class CopyError extends Error {}

export type Value = string | number | bigint | boolean | null;
export type Row = Value[];

export interface CopyTable extends TableSpec {
  /** Rows per page read from PostgreSQL (a SQLite page also ends at PAGE_BYTES of text). */
  pageRows: number;
}

/**
 * Tables the copy does not carry over: competition_versions, which only PostgreSQL has (the copy
 * fills it), pair_versions, PostgreSQL's stamps for other processes' catch-up (none is needed by a
 * database no process has read yet), and each engine's saved scores (a server's start-up cache of
 * its own, whose rows stand for versions or triggers of the database they were saved in;
 * src/db/savedScores.ts).
 */
export const NOT_COPIED = new Set(['competition_versions', 'pair_versions', 'saved_scores']);
/** Bounds a page's memory: tasks carry the QnA text and snapshots their whole document. */
const PAGE_ROWS: Record<string, number> = { tasks: 200, snapshots: 8 };
export const DEFAULT_PAGE_ROWS = 2000;
export const PAGE_BYTES = 8 * 1024 * 1024;

/** The counters of the two identity sequences, by table: the last number handed out (0: none). */
export type Counters = { runs: bigint; audit_log: bigint };

/** Every table the copy carries over, in foreign-key order (src/db/tables.ts). */
export function copyTables(): CopyTable[] {
  return schemaTables(NOT_COPIED).map((t) => ({ ...t, pageRows: PAGE_ROWS[t.name] ?? DEFAULT_PAGE_ROWS }));
}

export const q = (name: string) => `"${name}"`;
export const columnList = (t: TableSpec) => t.columns.map((c) => q(c.name)).join(', ');
export const selectAll = (t: TableSpec) =>
  `SELECT ${columnList(t)} FROM ${q(t.name)} ORDER BY ${t.key.map(q).join(', ')}`;

export function schemaMismatch(where: string, applied: number, expected: number): CopyError {
  return new CopyError(
    applied < expected
      ? `${where} is at schema migration ${applied} of ${expected}: start this version's server on it once (it migrates), then copy`
      : `${where} has ${applied} schema migrations, this version knows ${expected}: copy it with the newer swe-scoring`,
  );
}
