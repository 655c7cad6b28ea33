// The storage a server runs on, chosen by the configuration: the SQLite file (DATABASE_PATH, the
// default) or PostgreSQL (DATABASE_URL, for several server processes on one database).
import type { Config } from '../config.js';
import { openDatabase } from './client.js';
import type { PgLogger } from './pg/client.js';
import { createSqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

/** Without a pool size or timeout (the command line), PostgreSQL's defaults apply (src/db/pg/client.ts). */
export async function openStore(
  config: Pick<Config, 'databasePath' | 'databaseUrl'> &
    Partial<Pick<Config, 'databasePoolSize' | 'databaseTimeoutMs'>>,
  logger?: PgLogger,
): Promise<Store> {
  // PostgreSQL's modules load only when it is asked for: the SQLite default never loads them.
  if (config.databaseUrl)
    return (await import('./pg/open.js')).openPostgresStore(config.databaseUrl, {
      max: config.databasePoolSize,
      connectTimeoutMs: config.databaseTimeoutMs,
      statementTimeoutMs: config.databaseTimeoutMs === undefined ? undefined : 2 * config.databaseTimeoutMs,
      logger,
    });
  return createSqliteStore(openDatabase(config.databasePath));
}

/** Where the data is, for the log: a SQLite path, or the PostgreSQL server and database without credentials. */
export function describeStorage(config: Pick<Config, 'databasePath' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return config.databasePath;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname}`;
}
