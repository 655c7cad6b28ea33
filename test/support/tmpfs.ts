// Small file systems for the suites about full disks: tmpfs mounts of a few MiB at new folders
// (mounting needs root: those suites run only as root, as CI does), filled to their last byte.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The tmpfs mounts of one suite, each at a new folder under `parent`; `unmountAll` in its afterAll. */
export function tmpfsMounts(parent: string) {
  const mounts: string[] = [];
  return {
    /** A tmpfs of `size` (`4m`, say), mode 0700, at the new folder `name` under `parent`. */
    mount(name: string, size: string): string {
      const dir = join(parent, name);
      mkdirSync(dir);
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
      mounts.push(dir);
      return dir;
    },
    /** The mount at `dir` given another size. */
    resize(dir: string, size: string): void {
      execFileSync('mount', ['-o', `remount,size=${size}`, dir]);
    },
    unmountAll(): void {
      for (const dir of mounts.splice(0)) execFileSync('umount', ['-l', dir]);
    },
  };
}

/** Fills the file system of `dir` to its last byte with a file `filler`. */
export function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}
