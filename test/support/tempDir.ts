// Fresh temporary directories, each removed by its `remove` or, pass or fail, by
// `removeTempDirs` (in afterAll).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  dir: string;
  remove(): void;
}

const live = new Set<string>();

/** A new directory `$TMPDIR/swe-scoring-<name>-XXXXXX`. */
export function tempDir(name: string): TempDir {
  const dir = mkdtempSync(join(tmpdir(), `swe-scoring-${name}-`));
  live.add(dir);
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      live.delete(dir);
    },
  };
}

/** Removes every directory made here and not yet removed. */
export function removeTempDirs(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}
