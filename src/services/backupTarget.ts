// Which file of the live database a backup's target would be, if any. A backup renames its copy
// over the target (and removes a -wal or -shm beside it): aimed at the live database, its WAL or
// shared memory, that would lose acknowledged writes or the database itself. Compared by real path
// (symbolic links of folders and of the file resolved, as SQLite resolves them) and by inode (a
// hard link), so that a file that does not exist yet (a -wal between checkpoints) is caught too.
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { secretFiles } from '../config.js';

const LIVE_FILES: [suffix: string, what: string][] = [
  ['', 'the live database itself'],
  ['-wal', "the live database's write-ahead log (-wal)"],
  ['-shm', "the live database's shared memory (-shm)"],
  ['-journal', "the live database's rollback journal (-journal)"],
  ['.lock', "the live database's writer lock (.lock)"],
  ['.lock.pid', "the live database's writer lock (.lock.pid)"],
];

/** The names a path goes by: as given, with its folder's links resolved, and with its own link resolved. */
function namesOf(path: string): Set<string> {
  const names = new Set([resolve(path)]);
  try {
    names.add(join(realpathSync(dirname(path)), basename(path)));
    names.add(realpathSync(path));
  } catch {
    // a folder or file that does not exist: the names found so far
  }
  return names;
}

function inode(path: string): string | null {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}` : null;
}

/** Whether two paths name one file: by their names, links resolved, or by inode (a hard link). */
function sameFile(a: string, b: string): boolean {
  const names = namesOf(b);
  for (const name of namesOf(a)) if (names.has(name)) return true;
  const ia = inode(a);
  return ia !== null && ia === inode(b);
}

/** What of the live database at `database` the path `out` names, or null when none. */
export function liveFileAt(database: string, out: string): string | null {
  const outNames = namesOf(out);
  const outInode = inode(out);
  const databaseNames = namesOf(database);
  for (const [suffix, what] of LIVE_FILES) {
    for (const name of databaseNames) if (outNames.has(name + suffix)) return what;
    if (outInode !== null && inode(`${resolve(database)}${suffix}`) === outInode) return what;
  }
  return null;
}

/**
 * What of the server's own files the path `path` names, or null when none: a file of the live
 * database at `database` (as liveFileAt), or one of the secrets the environment places beside it
 * (its key files, its admin token), which no backup holds. `backup --out` would overwrite it and
 * `restore --from` would read it as a backup: both commands refuse such a path with this answer.
 */
export function serverFileAt(env: Record<string, string | undefined>, database: string, path: string): string | null {
  const live = liveFileAt(database, path);
  if (live) return `${live} at ${database} (DATABASE_PATH)`;
  const secret = secretFiles(env, database).find((f) => sameFile(f.path, path));
  return secret ? `${secret.what} (${secret.path})` : null;
}
