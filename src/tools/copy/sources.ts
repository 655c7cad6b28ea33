// The copy's sources (src/tools/copy/index.ts): a SQLite file or a PostgreSQL database, each read
// in one consistent snapshot, a bounded page at a time.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { applicationName } from '../../db/applicationName.js';
import { migrationCount } from '../../db/tables.js';
import {
  CopyError,
  copyTables,
  DEFAULT_PAGE_ROWS,
  describeEndpoint,
  PAGE_BYTES,
  q,
  schemaMismatch,
  selectAll,
  type Column,
  type CopyTable,
  type Counters,
  type Row,
  type Value,
} from './common.js';

export interface Source {
  /** Row count of each table, in the snapshot. */
  counts: Record<string, number>;
  counters: Counters;
  pages(table: CopyTable): AsyncIterable<Row[]>;
  close(): Promise<void>;
}

const invalid = (t: CopyTable, c: Column, v: unknown) =>
  new CopyError(`${t.name}.${c.name} holds ${typeof v} ${String(v)}, not a ${c.kind} value: not copied`);

/** A SQLite value (integers read as bigint) in the copy's form; refuses what the schema cannot hold. */
function fromSqlite(t: CopyTable, c: Column, v: unknown): Value {
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

export async function sqliteSource(path: string): Promise<Source> {
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
    const expected = migrationCount('sqlite');
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

export async function connect(url: string, role: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    // Named in pg_stat_activity as the server's own connections are: an operator sees what holds them.
    application_name: applicationName('copy'),
  });
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

export async function postgresSource(url: string): Promise<Source> {
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
    const expected = migrationCount('postgres');
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
