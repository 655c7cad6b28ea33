// Content dumps of a SQLite database: every row of every table, in a fixed order, so two
// dumps are equal exactly when the stored content is.
import Database from 'better-sqlite3';

export type Sqlite = Database.Database;
export type Rows = Record<string, unknown>[];

/**
 * Per connection, the statements its dumps run, prepared once while its schema stays as it is
 * (PRAGMA schema_version): a suite that dumps after each of thousands of requests spent a fifth of
 * each dump preparing the same statements again.
 */
const prepared = new WeakMap<Sqlite, { version: Database.Statement; at: number; statements: Map<string, unknown> }>();

function cached<T>(db: Sqlite, key: string, make: () => T): T {
  let entry = prepared.get(db);
  if (!entry) {
    entry = { version: db.prepare('PRAGMA schema_version').pluck(), at: -1, statements: new Map() };
    prepared.set(db, entry);
  }
  const at = entry.version.get() as number;
  if (at !== entry.at) {
    entry.statements.clear();
    entry.at = at;
  }
  if (!entry.statements.has(key)) entry.statements.set(key, make());
  return entry.statements.get(key) as T;
}

function tableNames(db: Sqlite): string[] {
  return cached(db, 'tables', () =>
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck(),
  ).all() as string[];
}

/** Every row of one table ordered by all its columns; `omit` leaves columns out. */
export function tableRows(db: Sqlite, table: string, omit: readonly string[] = []): Rows {
  return cached(db, `rows ${table} ${omit.join(',')}`, () => {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).filter(
      (c) => !omit.includes(c),
    );
    const list = cols.map((c) => `"${c}"`).join(', ');
    const order = cols.map((_, i) => i + 1).join(', ');
    return db.prepare(`SELECT ${list} FROM "${table}" ORDER BY ${order}`);
  }).all() as Rows;
}

/** The whole database's content as one string (including the migrations table), but for the tables in `leaveOut`. */
export function dumpAll(db: Sqlite, leaveOut: readonly string[] = []): string {
  const tables = tableNames(db).filter((t) => !leaveOut.includes(t));
  return JSON.stringify(Object.fromEntries(tables.map((t) => [t, tableRows(db, t)])));
}

/** Opens a database file read-only (the server may be running on it: WAL allows readers). */
export function withReadOnly<T>(path: string, fn: (db: Sqlite) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Describes the first difference between two row lists, or null when they are equal. */
export function rowsDiff(actual: Rows, expected: Rows): string | null {
  const a = actual.map((r) => JSON.stringify(r));
  const e = expected.map((r) => JSON.stringify(r));
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) return `row ${i} of ${a.length} (expected ${e.length}): got ${a[i]}, expected ${e[i]}`;
  }
  return null;
}
