// Import uploads, and the copies GET /v1/admin/backup sends, are spooled to a folder of their own
// under the system's temporary folder, named after the server process that made it. A process
// killed midway (SIGKILL, a crash) cannot remove its folder, which may hold a whole copy of the
// database; the next server start removes the folders of processes that no longer run. Folders of
// running processes (another replica, a test server) are left alone.
//
// A spool file that cannot be written (the folder full, or read-only) is a 503 that says so
// (`spoolError`), never a 500: the request it belongs to changed nothing.
import { mkdtempSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporaryFolderFull, temporaryFolderReadOnly } from '../errors.js';

/** What a spool folder holds: an import's upload, or a backup's copy. */
type SpoolKind = 'import' | 'backup';
/** A spool folder's name, with its kind and the pid of the process that made it. */
const SPOOL = /^swe-scoring-(?:import|backup)-(\d+)-/;

/** A new spool folder of this process. */
export function spoolDir(kind: SpoolKind = 'import'): string {
  try {
    return mkdtempSync(join(tmpdir(), `swe-scoring-${kind}-${process.pid}-`));
  } catch (e) {
    throw spoolError(e);
  }
}

/** Writes all of `bytes` to a spool file (a write may take fewer than it is given). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
  } catch (e) {
    throw spoolError(e);
  }
}

/**
 * A failure to write a spool file as the 503 it is: no room (the disk full, the user's quota
 * spent) or a folder that cannot be written. Any other error as it is. The folder goes to the log.
 */
export function spoolError(e: unknown): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  const cause = () => new Error(`the temporary folder ${tmpdir()}: ${(e as Error).message}`, { cause: e });
  if (code === 'ENOSPC' || code === 'EDQUOT') return temporaryFolderFull(cause());
  if (code === 'EROFS' || code === 'EACCES') return temporaryFolderReadOnly(cause());
  return e;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the spool folders of processes that no longer run; returns their names. */
export function sweepAbandonedSpools(dir = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const pid = SPOOL.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || running(Number(pid))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
