// SQLite's online backup as the contract's capability (src/db/contract.ts): a consistent copy of a
// connection's database while it keeps serving, a given number of pages per step. The copy's disk
// full is said as a file system says it (ENOSPC), for whoever chose where the copy goes; the source's
// failures as every other SQLite failure (./errors.ts).
import type Database from 'better-sqlite3';
import type { OnlineBackup } from '../capabilities.js';
import { mapSqliteError } from './errors.js';

export function sqliteOnlineBackup(c: Database.Database): OnlineBackup {
  return {
    async copyTo(path, pagesPerStep) {
      try {
        await c.backup(path, { progress: () => pagesPerStep });
      } catch (e) {
        // A backup only reads its source: a full disk is the copy's.
        if ((e as { code?: unknown }).code === 'SQLITE_FULL')
          throw Object.assign(new Error(`no room for the copy at ${path}`, { cause: e }), { code: 'ENOSPC' });
        throw mapSqliteError(e);
      }
    },
  };
}
