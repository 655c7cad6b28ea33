// Opens the SQLite database, sets the per-connection pragmas and applies migrations.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPrivateFile, makePrivateDir } from '../privateFiles.js';
import * as schema from './schema.js';
import { WAL_LIMIT_BYTES } from './sqlite/walGuard.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Resolved from this file so it works from src/ (tsx) and dist/ (node) alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface OpenOptions {
  /** Page cache, MiB: 8 by default (below); a connection that only appends (an import's) needs SQLite's own 2. */
  cacheMiB?: number;
}

export function openDatabase(path: string, { cacheMiB = 8 }: OpenOptions = {}): Db {
  if (path !== ':memory:') {
    // The file holds the answer keys: created 0600 (its folder 0700 when made here) before SQLite
    // opens it, and SQLite gives the -wal and -shm it creates the database file's mode.
    makePrivateDir(dirname(path));
    createPrivateFile(path);
  }
  const db = configure(new Database(path), cacheMiB);
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}

/**
 * An in-memory database holding a copy of `image` (`Database#serialize()` of a database
 * openDatabase opened, so migrated), with the same per-connection settings: a migrated database
 * without running the migrations again.
 */
export function openDatabaseImage(image: Buffer, { cacheMiB = 8 }: OpenOptions = {}): Db {
  return configure(new Database(image), cacheMiB);
}

function configure(sqlite: Database.Database, cacheMiB: number): Db {
  // WAL persists in the file; the rest must be set on every connection.
  sqlite.pragma('journal_mode = WAL');
  // FULL: the WAL is fsynced at every commit, so an acknowledged write survives a power cut,
  // not only a process crash (NORMAL in WAL mode may lose the last commits on power loss).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // 8 MiB of page cache (the default is 2 MiB): the aggregate and key pages every write touches
  // stay in memory. Ingest is faster than at 2 MiB and as fast as with 16 or 64 MiB, which would
  // only raise the peak RSS against the server's memory bound (docs/bench/README.md).
  sqlite.pragma(`cache_size = -${cacheMiB * 1024}`);
  // A log that grew past its bound (a long reader kept it from being checkpointed, a big import) is
  // truncated back to it once checkpointed, giving the disk back (./sqlite/walGuard.ts).
  sqlite.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
  return Object.assign(drizzle(sqlite, { schema }), { $client: sqlite });
}

/** True when the database answers and every migration in the folder is applied. */
export function isReady(db: Db): boolean {
  try {
    const row = db.$client.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number };
    return row.n >= migrationCount();
  } catch {
    return false;
  }
}

interface Journal {
  entries: { when: number; tag: string }[];
}
let cachedJournal: Journal | undefined;

/** The migrations this build has, oldest first: each one's tag and its `when`, the `created_at` drizzle records. */
export function knownMigrations(): Journal['entries'] {
  cachedJournal ??= JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as Journal;
  return cachedJournal.entries;
}

function migrationCount(): number {
  return knownMigrations().length;
}
