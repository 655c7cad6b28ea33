// `swe-scoring db copy`: every row of a swe-scoring database from one engine to another (SQLite
// file or PostgreSQL), for moving a deployment over to PostgreSQL and back.
//
// - The source is read in one consistent snapshot (a SQLite read transaction; PostgreSQL
//   REPEATABLE READ READ ONLY), so a live server can keep writing to it meanwhile.
// - The target is migrated first, must be empty, and is written in ONE transaction: all or
//   nothing. Row counts are checked inside that transaction before it commits.
// - Tables go in foreign-key order, a bounded page at a time (runs can be millions of rows).
// - Values are carried exactly: integers as bigint (never through a double), doubles as doubles,
//   SQLite 0/1 as booleans, text (JSON included) as the same string. The run and audit sequence
//   numbers are kept, and so is each sequence's counter, which can be above the largest number in
//   use (a deleted run takes a number; deleted_runs.deleted_seq shares the runs sequence).
import { is } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { MIGRATIONS_FOLDER, openDatabase } from './client.js';
import { holdWriterLock, LockHeld } from './writerLock.js';
import { PG_MIGRATIONS_FOLDER, migratePostgres } from './pg/migrate.js';
import * as pgSchema from './pg/schema.js';

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

type Kind = 'text' | 'int' | 'real' | 'bool';
type Value = string | number | bigint | boolean | null;
type Row = Value[];

interface Column {
  name: string;
  kind: Kind;
  /** The PostgreSQL type, for the unnest arrays. */
  pgType: string;
}

interface TableSpec {
  name: string;
  columns: Column[];
  /** The primary key: rows are read in its order, which both engines have an index for. */
  key: string[];
  /** A GENERATED ALWAYS identity column in PostgreSQL (the run and audit sequences). */
  identity: boolean;
  /** Rows per page read from PostgreSQL (a SQLite page also ends at PAGE_BYTES of text). */
  pageRows: number;
}

/**
 * Tables the copy does not carry over: competition_versions, which only PostgreSQL has (the copy
 * fills it), and each engine's saved scores (a server's start-up cache of its own, whose rows stand
 * for versions or triggers of the database they were saved in; src/db/savedScores.ts).
 */
const NOT_COPIED = new Set(['competition_versions', 'saved_scores']);
/** Bounds a page's memory: tasks carry the QnA text and snapshots their whole document. */
const PAGE_ROWS: Record<string, number> = { tasks: 200, snapshots: 8 };
const DEFAULT_PAGE_ROWS = 2000;
const PAGE_BYTES = 8 * 1024 * 1024;

const KINDS: Record<string, Kind> = {
  text: 'text',
  bigint: 'int',
  integer: 'int',
  'double precision': 'real',
  boolean: 'bool',
};

/** The counters of the two identity sequences, by table: the last number handed out (0: none). */
export type Counters = { runs: bigint; audit_log: bigint };

/**
 * Every table of the schema in foreign-key order (a referenced table before the tables that
 * reference it), read from the PostgreSQL drizzle schema, which test/db/pgSchema.test.ts holds
 * equal to the SQLite one.
 */
export function copyTables(): TableSpec[] {
  const configs = (Object.values(pgSchema) as unknown[])
    .filter((t): t is PgTable => is(t, PgTable))
    .map((t) => getTableConfig(t))
    .filter((c) => !NOT_COPIED.has(c.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const order: typeof configs = [];
  const placed = new Set<string>();
  while (order.length < configs.length) {
    const next = configs.find(
      (c) =>
        !placed.has(c.name) &&
        c.foreignKeys.every((fk) => {
          const target = getTableConfig(fk.reference().foreignTable).name;
          return target === c.name || placed.has(target);
        }),
    );
    if (!next) throw new Error('the schema has a foreign-key cycle');
    order.push(next);
    placed.add(next.name);
  }
  return order.map((c) => {
    const columns = c.columns.map((col) => {
      const pgType = col.getSQLType();
      const kind = KINDS[pgType];
      if (!kind) throw new Error(`${c.name}.${col.name}: no copy rule for type ${pgType}`);
      return { name: col.name, kind, pgType };
    });
    const primary = c.columns.filter((col) => col.primary).map((col) => col.name);
    const key = primary.length > 0 ? primary : c.primaryKeys[0]!.columns.map((col) => col.name);
    const identity = c.columns.some((col) => col.generatedIdentity !== undefined);
    return { name: c.name, columns, key, identity, pageRows: PAGE_ROWS[c.name] ?? DEFAULT_PAGE_ROWS };
  });
}

const q = (name: string) => `"${name}"`;
const columnList = (t: TableSpec) => t.columns.map((c) => q(c.name)).join(', ');
const selectAll = (t: TableSpec) => `SELECT ${columnList(t)} FROM ${q(t.name)} ORDER BY ${t.key.map(q).join(', ')}`;

function migrationCount(folder: string): number {
  const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

function schemaMismatch(where: string, applied: number, expected: number): CopyError {
  return new CopyError(
    applied < expected
      ? `${where} is at schema migration ${applied} of ${expected}: start this version's server on it once (it migrates), then copy`
      : `${where} has ${applied} schema migrations, this version knows ${expected}: copy it with the newer swe-scoring`,
  );
}

// ---- Sources ----------------------------------------------------------------------------------

interface Source {
  /** Row count of each table, in the snapshot. */
  counts: Record<string, number>;
  counters: Counters;
  pages(table: TableSpec): AsyncIterable<Row[]>;
  close(): Promise<void>;
}

const invalid = (t: TableSpec, c: Column, v: unknown) =>
  new CopyError(`${t.name}.${c.name} holds ${typeof v} ${String(v)}, not a ${c.kind} value: not copied`);

/** A SQLite value (integers read as bigint) in the copy's form; refuses what the schema cannot hold. */
function fromSqlite(t: TableSpec, c: Column, v: unknown): Value {
  if (v === null) return null;
  switch (c.kind) {
    case 'int':
      if (typeof v === 'bigint') return v;
      break;
    case 'bool':
      if (v === 0n || v === 1n) return v === 1n;
      break;
    case 'real':
      if (typeof v === 'number') return v;
      break;
    case 'text':
      if (typeof v === 'string') return v;
      break;
  }
  throw invalid(t, c, v);
}

async function sqliteSource(path: string): Promise<Source> {
  if (!existsSync(path)) throw new CopyError(`no SQLite database at ${path}`);
  // A connection of its own, read-only: a server on the same file keeps writing (WAL).
  const c = new Database(path, { readonly: true, fileMustExist: true });
  try {
    c.pragma('busy_timeout = 5000');
    c.defaultSafeIntegers(true); // 64-bit integers exactly, not through a double
    const applied = hasTable(c, '__drizzle_migrations')
      ? Number(c.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get())
      : 0;
    if (applied === 0) throw new CopyError(`${path} is not a swe-scoring database (no migrations table)`);
    const expected = migrationCount(MIGRATIONS_FOLDER);
    if (applied !== expected) throw schemaMismatch(path, applied, expected);
    // The snapshot starts with the first read inside the transaction and holds until COMMIT.
    c.exec('BEGIN');
    const counts: Record<string, number> = {};
    for (const t of copyTables()) {
      counts[t.name] = Number(
        c
          .prepare(`SELECT count(*) FROM ${q(t.name)}`)
          .pluck()
          .get(),
      );
    }
    const counter = c.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`).pluck();
    const counters: Counters = {
      runs: (counter.get('runs') as bigint | undefined) ?? 0n,
      audit_log: (counter.get('audit_log') as bigint | undefined) ?? 0n,
    };
    return {
      counts,
      counters,
      async *pages(t) {
        let page: Row[] = [];
        let bytes = 0;
        for (const raw of c.prepare(selectAll(t)).raw().iterate() as Iterable<unknown[]>) {
          const row = t.columns.map((col, i) => fromSqlite(t, col, raw[i]));
          for (const v of row) if (typeof v === 'string') bytes += v.length;
          page.push(row);
          if (page.length >= DEFAULT_PAGE_ROWS || bytes >= PAGE_BYTES) {
            yield page;
            page = [];
            bytes = 0;
          }
        }
        if (page.length > 0) yield page;
      },
      async close() {
        if (c.inTransaction) c.exec('COMMIT');
        c.close();
      },
    };
  } catch (e) {
    c.close();
    throw e;
  }
}

function hasTable(c: Database.Database, name: string): boolean {
  return c.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
}

async function connect(url: string, role: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // An idle client whose server went away emits 'error'; without a listener the process exits.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw new CopyError(
      `cannot connect to the ${role} ${describeEndpoint({ engine: 'postgres', url })}: ${(e as Error).message}`,
    );
  }
  return client;
}

/** A PostgreSQL value (int8 arrives as a string) in the copy's form. */
function fromPostgres(c: Column, v: unknown): Value {
  if (v === null) return null;
  if (c.kind === 'int') return BigInt(v as string | number);
  return v as Value;
}

async function postgresSource(url: string): Promise<Source> {
  const client = await connect(url, 'source');
  try {
    const hasMigrations = await client.query<{ t: string | null }>(
      `SELECT to_regclass('drizzle.__drizzle_migrations') AS t`,
    );
    if (hasMigrations.rows[0]!.t === null)
      throw new CopyError(
        `${describeEndpoint({ engine: 'postgres', url })} is not a swe-scoring database (no migrations table)`,
      );
    const applied = await client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
    const expected = migrationCount(PG_MIGRATIONS_FOLDER);
    if (Number(applied.rows[0]!.n) !== expected)
      throw schemaMismatch(describeEndpoint({ engine: 'postgres', url }), Number(applied.rows[0]!.n), expected);
    // One snapshot for every read below; READ ONLY: the copy never writes to its source.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const counts: Record<string, number> = {};
    for (const t of copyTables()) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(t.name)}`);
      counts[t.name] = Number(rows[0]!.n);
    }
    // Sequences are outside transactions: this is the counter now, at or past the snapshot's.
    const counter = async (table: string) => {
      const { rows } = await client.query<{ v: string | null }>(
        `SELECT pg_sequence_last_value(pg_get_serial_sequence($1, 'seq')::regclass) AS v`,
        [table],
      );
      return BigInt(rows[0]!.v ?? 0);
    };
    const counters: Counters = { runs: await counter('runs'), audit_log: await counter('audit_log') };
    let cursors = 0;
    return {
      counts,
      counters,
      async *pages(t) {
        const cursor = `copy_${cursors++}`;
        await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${selectAll(t)}`);
        try {
          for (;;) {
            const { rows } = await client.query<unknown[]>({
              text: `FETCH ${t.pageRows} FROM ${cursor}`,
              rowMode: 'array',
            });
            if (rows.length === 0) break;
            yield rows.map((raw) => t.columns.map((col, i) => fromPostgres(col, raw[i])));
          }
        } finally {
          await client.query(`CLOSE ${cursor}`);
        }
      },
      async close() {
        await client.query('COMMIT').catch(() => {});
        await client.end();
      },
    };
  } catch (e) {
    await client.end().catch(() => {});
    throw e;
  }
}

// ---- Targets ----------------------------------------------------------------------------------

interface Target {
  /** Starts the transaction and refuses a target that holds any row. */
  begin(): Promise<void>;
  insert(t: TableSpec, rows: Row[]): Promise<void>;
  /** Row counts of every table, inside the transaction. */
  counts(tables: TableSpec[]): Promise<Record<string, number>>;
  /** Sets the sequence counters, then commits. */
  commit(counters: Counters): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

const notEmpty = (where: string, table: string) =>
  new CopyError(`the target ${where} is not empty: table ${table} holds rows. Copy only into an empty database.`);

function lockTarget(path: string) {
  try {
    return holdWriterLock(path, 'swe-scoring db copy');
  } catch (e) {
    if (e instanceof LockHeld) throw new CopyError(`${e.message}; stop it first: nothing was copied`);
    throw e;
  }
}

function sqliteTarget(path: string): Target {
  // One writer per SQLite file (src/db/writerLock.ts): a file a server runs on is refused.
  const lock = lockTarget(path);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path); // creates the file if needed and applies the migrations
  } catch (e) {
    lock.release();
    throw e;
  }
  const c = db.$client;
  c.defaultSafeIntegers(true);
  const tables = copyTables();
  const inserts = new Map(
    tables.map((t) => [
      t.name,
      c.prepare(`INSERT INTO ${q(t.name)} (${columnList(t)}) VALUES (${t.columns.map(() => '?').join(', ')})`),
    ]),
  );
  const toSqlite = (v: Value) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
  return {
    async begin() {
      // IMMEDIATE: the write lock now, so no other writer slips in between the check and the copy.
      c.exec('BEGIN IMMEDIATE');
      for (const t of tables) {
        if (c.prepare(`SELECT 1 FROM ${q(t.name)} LIMIT 1`).get() !== undefined) throw notEmpty(path, t.name);
      }
    },
    async insert(t, rows) {
      const stmt = inserts.get(t.name)!;
      for (const row of rows) stmt.run(row.map(toSqlite));
    },
    async counts(list) {
      return Object.fromEntries(
        list.map((t) => [
          t.name,
          Number(
            c
              .prepare(`SELECT count(*) FROM ${q(t.name)}`)
              .pluck()
              .get(),
          ),
        ]),
      );
    },
    async commit(counters) {
      // Inserting explicit numbers left each counter at the largest one (and an emptied database
      // keeps its old counters): set the source's. No row where nothing was ever numbered, as in SQLite.
      for (const [name, value] of Object.entries(counters)) {
        c.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(name);
        if (value > 0n) c.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(name, value);
      }
      c.exec('COMMIT');
    },
    async rollback() {
      if (c.inTransaction) c.exec('ROLLBACK');
    },
    async close() {
      c.close();
      lock.release();
    },
  };
}

/** A copy-form value as the text of a PostgreSQL array element (exact), or null. */
function toPostgres(v: Value): string | null {
  if (v === null || typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return v.toString();
  // String(n) is the shortest text that reads back as the same double, except that it drops -0's sign.
  return Object.is(v, -0) ? '-0' : String(v);
}

/**
 * One column of a page as a PostgreSQL array literal, every element quoted. Built here rather
 * than by `pg` (which concatenates element by element and escapes with two passes): on runs with
 * their JSON that would be most of the copy's time, in the garbage collector.
 */
function arrayLiteral(values: (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

async function postgresTarget(url: string): Promise<Target> {
  const where = describeEndpoint({ engine: 'postgres', url });
  try {
    await migratePostgres(url);
  } catch (e) {
    throw new CopyError(`cannot migrate the target ${where}: ${(e as Error).message}`);
  }
  const client = await connect(url, 'target');
  const tables = [...copyTables().map((t) => t.name), ...NOT_COPIED];
  return {
    async begin() {
      await client.query('BEGIN');
      // Held to the commit: no server writes into the tables between the check and the copy.
      await client.query(`LOCK TABLE ${tables.map(q).join(', ')} IN EXCLUSIVE MODE`);
      for (const name of tables) {
        const { rows } = await client.query(`SELECT 1 FROM ${q(name)} LIMIT 1`);
        if (rows.length > 0) throw notEmpty(where, name);
      }
    },
    async insert(t, rows) {
      // One statement per page whatever its size: a column per array (docs/POSTGRES.md, ingest).
      const arrays = t.columns.map((_, i) => arrayLiteral(rows.map((row) => toPostgres(row[i]!))));
      const casts = t.columns.map((c, i) => `$${i + 1}::${c.pgType}[]`).join(', ');
      const overriding = t.identity ? ' OVERRIDING SYSTEM VALUE' : '';
      await client.query(
        `INSERT INTO ${q(t.name)} (${columnList(t)})${overriding} SELECT * FROM unnest(${casts})`,
        arrays,
      );
    },
    async counts(list) {
      const counts: Record<string, number> = {};
      for (const t of list) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(t.name)}`);
        counts[t.name] = Number(rows[0]!.n);
      }
      return counts;
    },
    async commit(counters) {
      // PostgreSQL only: each competition's write version starts at 1 (src/db/pg/schema.ts).
      await client.query('INSERT INTO competition_versions (competition_id, version) SELECT id, 1 FROM competitions');
      for (const [name, value] of Object.entries(counters)) {
        // setval(s, v, true): the next number is v + 1; (s, 1, false): the next is 1, as when new.
        await client.query(`SELECT setval(pg_get_serial_sequence($1, 'seq'), $2, $3)`, [
          name,
          value > 0n ? value.toString() : '1',
          value > 0n,
        ]);
      }
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => {});
    },
    async close() {
      await client.end();
    },
  };
}

// ---- The copy ---------------------------------------------------------------------------------

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyResult {
  /** Rows of each table in the source snapshot, equal to the rows counted in the target. */
  tables: { table: string; rows: number; ms: number }[];
  counters: Counters;
  ms: number;
}

/** The columns numbered by a sequence. The runs sequence numbers deletions too (src/db/runs.ts). */
const NUMBERED: Record<string, { counter: keyof Counters; column: string }> = {
  runs: { counter: 'runs', column: 'seq' },
  deleted_runs: { counter: 'runs', column: 'deleted_seq' },
  audit_log: { counter: 'audit_log', column: 'seq' },
};

const endpointKey = (e: Endpoint) => (e.engine === 'sqlite' ? `sqlite:${resolve(e.path)}` : e.url);

/** Copies every row of `from` into the empty database `to`, in one transaction on `to`. */
export async function copyDatabase(
  from: Endpoint,
  to: Endpoint,
  /** Told after each page; the copy waits for a promise it returns. */
  onProgress: (p: CopyProgress) => void | Promise<void> = () => {},
): Promise<CopyResult> {
  if (endpointKey(from) === endpointKey(to)) throw new CopyError('the source and the target are the same database');
  const started = performance.now();
  const tables = copyTables();
  const source = from.engine === 'sqlite' ? await sqliteSource(from.path) : await postgresSource(from.url);
  let target: Target | undefined;
  try {
    target = to.engine === 'sqlite' ? sqliteTarget(to.path) : await postgresTarget(to.url);
    await target.begin();
    try {
      const done: CopyResult['tables'] = [];
      // The counters never fall below a number in use, whatever the source's counter says.
      const counters: Counters = { ...source.counters };
      for (const t of tables) {
        const tableStarted = performance.now();
        const total = source.counts[t.name]!;
        const numbered = NUMBERED[t.name];
        const seqColumn = numbered ? t.columns.findIndex((c) => c.name === numbered.column) : -1;
        let copied = 0;
        for await (const page of source.pages(t)) {
          await target.insert(t, page);
          if (numbered) {
            for (const row of page) {
              const seq = row[seqColumn] as bigint;
              if (seq > counters[numbered.counter]) counters[numbered.counter] = seq;
            }
          }
          copied += page.length;
          await onProgress({ table: t.name, copied, total });
        }
        if (copied !== total)
          throw new CopyError(`${t.name}: the source snapshot counted ${total} rows but ${copied} were read`);
        done.push({ table: t.name, rows: copied, ms: performance.now() - tableStarted });
      }
      const written = await target.counts(tables);
      for (const t of tables) {
        if (written[t.name] !== source.counts[t.name])
          throw new CopyError(
            `${t.name}: the target holds ${written[t.name]} rows, the source ${source.counts[t.name]}: nothing copied`,
          );
      }
      await target.commit(counters);
      return { tables: done, counters, ms: performance.now() - started };
    } catch (e) {
      await target.rollback();
      throw e;
    }
  } finally {
    await target?.close();
    await source.close();
  }
}
