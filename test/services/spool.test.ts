// Import and backup spool folders of processes that no longer run are removed at start; those of running
// processes (this one, another server) are kept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sweepAbandonedSpools } from '../../src/services/spool.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('spool');
afterAll(() => tmp.remove());

it('removes the spool folders of processes that no longer run, and only those', () => {
  // A pid that ran and has exited.
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  const folder = (name: string) => {
    const dir = join(tmp.dir, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'upload.jsonl'), 'x');
    return dir;
  };
  const abandoned = folder(`swe-scoring-import-${gone}-abc123`);
  const mine = folder(`swe-scoring-import-${process.pid}-def456`);
  const parent = folder(`swe-scoring-import-${process.ppid}-ghi789`);
  const other = folder('swe-scoring-import-jkl012'); // not named after a process: not ours to judge
  // A backup's copy, left by a server killed while it sent GET /v1/admin/backup (a whole database).
  const backup = folder(`swe-scoring-backup-${gone}-mno345`);
  const runningBackup = folder(`swe-scoring-backup-${process.pid}-pqr678`);
  expect(sweepAbandonedSpools(tmp.dir).sort()).toEqual(
    [`swe-scoring-import-${gone}-abc123`, `swe-scoring-backup-${gone}-mno345`].sort(),
  );
  for (const removed of [abandoned, backup]) expect(existsSync(removed)).toBe(false);
  for (const kept of [mine, parent, other, runningBackup]) expect(existsSync(kept)).toBe(true);
});
