// The engine a test project runs on (vitest.config.ts sets SCORING_TEST_ENGINE=postgres for the
// PostgreSQL projects), and, on PostgreSQL, the database standing in for a SQLite file path: one
// per path, copied from the run's migrated template, so a server or app reopened on the same path
// finds its data. They are dropped when the run ends (test/support/pgGlobalSetup.ts).
import { existsSync, readFileSync } from 'node:fs';
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { inject } from 'vitest';
import type { Engine } from '../../src/db/contract.js';
import { migratePostgres, PG_MIGRATIONS_FOLDER } from '../../src/db/pg/migrate.js';
import * as pgSchema from '../../src/db/pg/schema.js';
import { tableRows, withReadOnly, type Rows } from './dbDump.js';
import { copyDatabase, createScratchDatabase, type ScratchDatabase } from './postgres.js';

export const TEST_ENGINE: Engine = process.env.SCORING_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

const databasesByPath = new Map<string, Promise<ScratchDatabase>>();

const MIGRATIONS = (
  JSON.parse(readFileSync(`${PG_MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as { entries: unknown[] }
).entries.length;

/** The tables the PostgreSQL migrations make. */
const TABLES = Object.values(pgSchema).filter((t) => is(t, PgTable)).length;

/** Emptied databases of finished test apps, ready for the next (copying the template takes ~0.3 s). */
const free: ScratchDatabase[] = [];

/** A fresh PostgreSQL database, or the one already standing in for `path` (asked for at once: one). */
export function postgresDatabaseFor(path?: string): Promise<ScratchDatabase> {
  const known = path === undefined ? undefined : databasesByPath.get(path);
  if (known) return known;
  const reused = path === undefined ? free.pop() : undefined;
  const made = reused ? Promise.resolve(reused) : create();
  if (path !== undefined) databasesByPath.set(path, made);
  return made;
}

/**
 * Empties a database no one uses any more (every row deleted, sequences restarted: as freshly
 * migrated) and keeps it for the next test app; drops it if that fails.
 */
export async function recycleDatabase(db: ScratchDatabase): Promise<void> {
  // Without a run (a project with no global setup naming one) no teardown would drop a kept
  // database: drop it now.
  if (!inject('pgRun')) return db.drop();
  const client = new pg.Client({ connectionString: db.url });
  let reusable = false;
  try {
    await client.connect();
    // A test may have dropped a table or forgotten migrations (test/http/errors.test.ts): such a database goes.
    const applied = await client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    if (Number(applied.rows[0]!.n) !== MIGRATIONS || rows.length !== TABLES) return;
    await client.query('BEGIN');
    // Foreign keys are not checked while rows of every table go (superuser; the test server's role).
    await client.query('SET LOCAL session_replication_role = replica');
    for (const { table_name } of rows) await client.query(`DELETE FROM "${table_name}"`);
    await client.query('ALTER TABLE runs ALTER COLUMN seq RESTART; ALTER TABLE audit_log ALTER COLUMN seq RESTART');
    await client.query('COMMIT');
    reusable = true;
  } catch {
    // dropped below
  } finally {
    // Disconnected first: dropping the database would end this session under it.
    await client.end().catch(() => {});
    if (reusable) free.push(db);
    else await db.drop();
  }
}

async function create(): Promise<ScratchDatabase> {
  const template = inject('pgTemplate');
  if (template) return copyDatabase(template, `app_${inject('pgRun')}`);
  // A SQLite project's suite that compares both engines: no template, migrate this one.
  const run = inject('pgRun');
  const db = await createScratchDatabase(run ? `app_${run}` : 'app');
  await migratePostgres(db.url);
  return db;
}

/** Reads the database a server process runs on (the SQLite file, or its PostgreSQL stand-in), read-only. */
export interface ServerDatabase {
  /** Every row of a table ordered by all its columns, `omit` left out (test/support/dbDump.ts). */
  rows(table: string, omit?: readonly string[]): Promise<Rows>;
  /** SQL valid on both engines; rows as objects. */
  query(sql: string): Promise<Rows>;
  /** Everything stored, as text: the database files on SQLite, every table's rows on PostgreSQL. */
  content(): Promise<Buffer>;
}

export function serverDatabase(dbPath: string): ServerDatabase {
  if (TEST_ENGINE === 'sqlite') {
    const files = () => ['', '-wal', '-shm'].map((s) => `${dbPath}${s}`).filter((f) => existsSync(f));
    return {
      rows: async (table, omit = []) => withReadOnly(dbPath, (db) => tableRows(db, table, omit)),
      query: async (sql) => withReadOnly(dbPath, (db) => db.prepare(sql).all() as Rows),
      content: async () => Buffer.concat(files().map((f) => readFileSync(f))),
    };
  }
  const withClient = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: (await postgresDatabaseFor(dbPath)).url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const rows = (c: pg.Client, table: string, omit: readonly string[]) =>
    c
      .query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
        [table],
      )
      .then(async ({ rows: cols }) => {
        const kept = cols.map((r) => r.column_name).filter((name) => !omit.includes(name));
        const list = kept.map((name) => `"${name}"`).join(', ');
        const order = kept.map((_, i) => i + 1).join(', ');
        return (await c.query(`SELECT ${list} FROM "${table}" ORDER BY ${order}`)).rows as Rows;
      });
  return {
    rows: (table, omit = []) => withClient((c) => rows(c, table, omit)),
    query: (sql) => withClient(async (c) => (await c.query(sql)).rows as Rows),
    content: () =>
      withClient(async (c) => {
        const tables = await c.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
        );
        const all: Rows[] = [];
        for (const { table_name } of tables.rows) all.push(await rows(c, table_name, []));
        return Buffer.from(JSON.stringify(all), 'utf8');
      }),
  };
}
