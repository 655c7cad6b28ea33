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

/**
 * Every row of one table ordered by all its columns; `omit` leaves columns out. The rows are read
 * as arrays and made objects here, with the same keys in the same order: better-sqlite3's own
 * objects took twice as long, which suites comparing whole tables after every step paid for.
 */
export function tableRows(db: Sqlite, table: string, omit: readonly string[] = []): Rows {
  const { select, cols } = cached(db, `rows ${table} ${omit.join(',')}`, () => {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).filter(
      (c) => !omit.includes(c),
    );
    const list = cols.map((c) => `"${c}"`).join(', ');
    const order = cols.map((_, i) => i + 1).join(', ');
    return { select: db.prepare(`SELECT ${list} FROM "${table}" ORDER BY ${order}`).raw(true), cols };
  });
  return (select.all() as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < cols.length; i++) row[cols[i]!] = values[i];
    return row;
  });
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

/**
 * Describes the first difference between two row lists, or null when they are equal: rows are
 * equal when their JSON is. Rows with the same keys in the same order and identical values have
 * the same JSON and are passed without it (some tenfold faster over a table of 200,000 runs); any
 * other pair is compared by its JSON.
 */
export function rowsDiff(actual: Rows, expected: Rows): string | null {
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const a = actual[i];
    const e = expected[i];
    if (a !== undefined && e !== undefined && sameValues(a, e)) continue;
    const [aJson, eJson] = [JSON.stringify(a), JSON.stringify(e)];
    if (aJson !== eJson)
      return `row ${i} of ${actual.length} (expected ${expected.length}): got ${aJson}, expected ${eJson}`;
  }
  return null;
}

/** The same keys in the same order, each with the identical value (===). */
function sameValues(a: Record<string, unknown>, e: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  const other = Object.keys(e);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== other[i] || a[keys[i]!] !== e[keys[i]!]) return false;
  return true;
}
