// The files that hold the answer keys or a secret (the SQLite database, its -wal and -shm, the
// writer lock, backups, the admin token and every key file) are the owner's alone: mode 0600, and
// the folder the server creates for them 0700. Modes are set with chmod, never left to the umask,
// which can only take bits away (a umask of 0277 would leave a key file unwritable). Any code that
// writes such a file calls `createPrivateFile` or `tightenFile`; the server lists its files in
// one place (src/server.ts) and tightens them at start.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/** A mode this process changed, for the log. */
export interface ModeChange {
  file: string;
  from: string;
  to: string;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Creates `dir` and its missing parents with mode 0700; a folder that exists is left as it is. */
export function makePrivateDir(dir: string): void {
  const target = resolve(dir);
  if (existsSync(target)) return;
  const first = mkdirSync(target, { recursive: true, mode: FOLDER_MODE });
  if (first === undefined) return;
  // Every folder from the target up to the first one created is new: each gets 0700 whatever the umask.
  for (let d = target; ; d = dirname(d)) {
    chmodSync(d, FOLDER_MODE);
    if (d === first || dirname(d) === d) break;
  }
}

/** Creates an empty file at `path` with mode 0600 unless one is there; true when it created it. */
export function createPrivateFile(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx', FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  chmodSync(path, FILE_MODE);
  return true;
}

/**
 * Takes group and world access away from the file at `path` (mode 0600); what it changed, or null
 * when the file is missing or already private.
 */
export function tightenFile(path: string): ModeChange | null {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  chmodSync(path, FILE_MODE);
  return { file: path, from: octal(mode), to: octal(FILE_MODE) };
}

/** `tightenFile` for each path; the changes made. */
export function tightenFiles(paths: Iterable<string>): ModeChange[] {
  const changes: ModeChange[] = [];
  for (const path of paths) {
    const change = tightenFile(path);
    if (change) changes.push(change);
  }
  return changes;
}
