// SQLite's online backup as the contract's capability (src/db/contract.ts): a consistent copy of a
// connection's database while it keeps serving, a given number of pages per step.
import type Database from 'better-sqlite3';
import type { OnlineBackup } from '../capabilities.js';

export function sqliteOnlineBackup(c: Database.Database): OnlineBackup {
  return {
    async copyTo(path, pagesPerStep) {
      await c.backup(path, { progress: () => pagesPerStep });
    },
  };
}
