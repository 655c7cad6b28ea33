// The storage a server runs on, chosen by the configuration: the SQLite file (DATABASE_PATH, the
// default) or PostgreSQL (DATABASE_URL, for several server processes on one database).
import type { Config } from '../config.js';
import { openDatabase } from './client.js';
import type { PgLogger } from './pg/client.js';

/** Where the store's own warnings go (a lost PostgreSQL connection); SQLite has none to give. */
export type StoreLogger = PgLogger;
import { createSqliteStore } from './sqlite/store.js';
import type { Store } from './contract.js';
import { holdWriterLock, lockFiles, LockHeld, realDatabasePath } from './writerLock.js';

/** Without a pool size or timeout (the command line), PostgreSQL's defaults apply (src/db/pg/client.ts). */
export async function openStore(
  config: Pick<Config, 'databasePath' | 'databaseUrl'> &
    Partial<Pick<Config, 'databasePoolSize' | 'databaseTimeoutMs' | 'instanceLabel'>>,
  logger?: PgLogger,
): Promise<Store> {
  // PostgreSQL's modules load only when it is asked for: the SQLite default never loads them.
  if (config.databaseUrl)
    return (await import('./pg/open.js')).openPostgresStore(config.databaseUrl, {
      max: config.databasePoolSize,
      connectTimeoutMs: config.databaseTimeoutMs,
      statementTimeoutMs: config.databaseTimeoutMs === undefined ? undefined : 2 * config.databaseTimeoutMs,
      instanceLabel: config.instanceLabel,
      logger,
    });
  try {
    return openSqliteStore(config.databasePath, 'swe-scoring serve');
  } catch (e) {
    if (e instanceof LockHeld)
      throw new Error(`${e.message}; stop it first, or set DATABASE_PATH to another file`, { cause: e });
    throw e;
  }
}

/**
 * The SQLite file as this process's alone (src/db/writerLock.ts): refused with a LockHeld when
 * another process writes it; the lock is released when the store closes.
 */
export function openSqliteStore(path: string, command: string): Store {
  const lock = holdWriterLock(path, command);
  let store: Store;
  try {
    store = createSqliteStore(openDatabase(path));
  } catch (e) {
    lock.release();
    throw e;
  }
  const close = store.close.bind(store);
  return Object.assign(store, {
    async close() {
      try {
        await close();
      } finally {
        lock.release();
      }
    },
  });
}

/** Where the data is, for the log: a SQLite path, or the PostgreSQL server and database without credentials. */
export function describeStorage(config: Pick<Config, 'databasePath' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return config.databasePath;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}

/**
 * Every file of the SQLite database at `path` that holds its data or guards it: the file, its WAL
 * and shared memory, a rollback journal, and the writer lock with its sidecar.
 */
export function sqliteFiles(path: string): string[] {
  const real = realDatabasePath(path);
  const { lock, holder } = lockFiles(real);
  return [real, `${real}-wal`, `${real}-shm`, `${real}-journal`, lock, holder];
}
