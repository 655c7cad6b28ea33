// Online backups of the SQLite database with SQLite's backup API: a consistent copy while the
// server keeps writing. Through the server's own connection (the admin route) the copy follows the
// writes made meanwhile and ends as one consistent state; from another connection (the command
// line) it copies everything in one step, a single read of one snapshot that writers do not wait on.
import type Database from 'better-sqlite3';
import type { Store } from '../db/store.js';
import { conflict } from '../errors.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BackupFile {
  path: string;
  bytes: number;
  /** Deletes the file and its temporary folder. */
  remove: () => void;
}

/** Pages copied per step on the server's connection: 1,000 pages (about 4 MB), then the event loop runs. */
const STEP_PAGES = 1000;
/** Everything in one step: one read transaction, so another process's writes cannot restart it. */
const ALL_PAGES = 0x7fffffff;

/**
 * Writes a consistent copy of `sqlite` to `path` (a new file). `shared`: the connection also serves
 * requests, so copy in small steps and let them run in between.
 */
export async function backupDatabase(sqlite: Database.Database, path: string, shared = true): Promise<number> {
  const rate = shared ? STEP_PAGES : ALL_PAGES;
  await sqlite.backup(path, { progress: () => rate });
  return statSync(path).size;
}

/** What a backup of a server on PostgreSQL is told, over HTTP and on the command line. */
export const ON_POSTGRES = 'this server stores its data in PostgreSQL: back it up with pg_dump (docs/POSTGRES.md)';

export function backupService(store: Store) {
  return {
    /** A consistent copy in a fresh temporary folder; the caller removes it when done. */
    async toTempFile(): Promise<BackupFile> {
      if (!store.sqlite) throw conflict(`${ON_POSTGRES}; this route copies the SQLite file`);
      const sqlite = store.sqlite.$client;
      const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-backup-'));
      const remove = () => rmSync(dir, { recursive: true, force: true });
      try {
        const path = join(dir, 'backup.db');
        return { path, bytes: await backupDatabase(sqlite, path), remove };
      } catch (e) {
        remove();
        throw e;
      }
    },
  };
}
