// Online backups of the SQLite database with SQLite's backup API: a consistent copy while the
// server keeps writing. Through the server's own connection (the admin route) the copy follows the
// writes made meanwhile and ends as one consistent state; from another connection (the command
// line) it copies everything in one step, a single read of one snapshot that writers do not wait on.
// A copy is written to a temporary file beside its target and renamed into place once whole: a
// failed backup deletes nothing, and never a file of the live database (src/services/backupTarget.ts).
import type { OnlineBackup } from '../db/capabilities.js';
import type { Store } from '../db/contract.js';
import { conflict } from '../errors.js';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createPrivateFile } from '../privateFiles.js';
import { spoolDir, spoolError } from './spool.js';

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
 * Writes a consistent copy of the database `source` copies to `path` (a new file). `shared`: the
 * connection also serves requests, so copy in small steps and let them run in between.
 */
async function backupDatabase(source: OnlineBackup, path: string, shared = true): Promise<number> {
  // Created 0600 before SQLite writes it: a backup holds the answer keys as the database does.
  createPrivateFile(path);
  await source.copyTo(path, shared ? STEP_PAGES : ALL_PAGES);
  return statSync(path).size;
}

/**
 * Writes a consistent copy of `source` to `out` (from another connection than the server's): into a
 * temporary file in the same folder, renamed over `out` once whole. Nothing is deleted before the
 * copy is complete; then a -wal or -shm left beside `out` (which SQLite would replay into the new
 * file) goes, and the rename makes the copy appear at once, whole.
 */
export async function backupToFile(source: OnlineBackup, out: string): Promise<number> {
  const temporary = join(dirname(out), `.${basename(out)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const bytes = await backupDatabase(source, temporary, false);
    for (const suffix of ['-wal', '-shm']) rmSync(out + suffix, { force: true });
    renameSync(temporary, out);
    syncFolder(dirname(out));
    return bytes;
  } finally {
    for (const suffix of ['', '-journal']) rmSync(temporary + suffix, { force: true });
  }
}

/** The folder's entry for a renamed file reaches the disk (a power cut after it keeps the file). */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every platform opens folders (Windows): the rename stands without it.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a backup of a server on PostgreSQL is told, over HTTP and on the command line. */
export const ON_POSTGRES = 'this server stores its data in PostgreSQL: back it up with pg_dump (docs/POSTGRES.md)';

export function backupService(store: Store) {
  return {
    /** A consistent copy in a fresh temporary folder; the caller removes it when done. */
    async toTempFile(): Promise<BackupFile> {
      const source = store.capabilities.onlineBackup;
      if (!source) throw conflict(`${ON_POSTGRES}; this route copies the SQLite file`);
      // Named after this process: if it dies midway, the next start removes the copy (./spool.ts).
      const dir = spoolDir('backup');
      const remove = () => rmSync(dir, { recursive: true, force: true });
      try {
        const path = join(dir, 'backup.db');
        return { path, bytes: await backupDatabase(source, path), remove };
      } catch (e) {
        remove();
        throw spoolError(e);
      }
    },
  };
}
