// Import uploads, and the copies GET /v1/admin/backup sends, are spooled to a folder of their own
// under the system's temporary folder, named after the server process that made it. A process
// killed midway (SIGKILL, a crash) cannot remove its folder, which may hold a whole copy of the
// database; the next server start removes the folders of processes that no longer run. Folders of
// running processes (another replica, a test server) are left alone.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a spool folder holds: an import's upload, or a backup's copy. */
type SpoolKind = 'import' | 'backup';
/** A spool folder's name, with its kind and the pid of the process that made it. */
const SPOOL = /^swe-scoring-(?:import|backup)-(\d+)-/;

/** A new spool folder of this process. */
export function spoolDir(kind: SpoolKind = 'import'): string {
  return mkdtempSync(join(tmpdir(), `swe-scoring-${kind}-${process.pid}-`));
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
