// One writer per SQLite file. A server, an import straight into the file, the demo and `db copy`
// into a SQLite target each hold `<database>.lock` for as long as they run; a second one is
// refused with one line naming the process that holds it. The lock is an exclusive transaction on
// that companion SQLite file (POSIX fcntl locks underneath): the kernel releases it when the
// process ends, a crash or `kill -9` included, so a lock is never left behind. A small text file
// beside it, `<database>.lock.pid`, names the holder (pid, command, since when); it is written
// once the lock is won and is only ever read while the lock is held. A file with more than one name
// (a hard link) is refused: a lock beside each name would not be one lock.
//
// The lock is the process's: the import worker thread's own connection to the database belongs to
// the server that holds it, and `backup` (read-only) needs no lock, so both work beside a server.
import {
  chmodSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateFile, makePrivateDir } from '../privateFiles.js';

/** The lock of a database file, held until `release`. */
export interface WriterLock {
  release(): void;
}

/** Who holds a lock, as its sidecar file says. */
interface Holder {
  pid: number;
  command: string;
  since: string;
}

/** The lock is held by another process (or another holder in this one). */
export class LockHeld extends Error {
  constructor(
    readonly path: string,
    readonly holder: Holder | null,
  ) {
    super(
      `${path} is in use by ${
        holder ? `process ${holder.pid} (${holder.command}, since ${holder.since})` : 'another process'
      }: one process writes a SQLite file at a time`,
    );
  }
}

/**
 * The file's path with its folders' symbolic links resolved, as SQLite names its -wal and -shm: two
 * paths to one file take one lock. Neither the file nor its folder need exist yet.
 */
export function realDatabasePath(path: string): string {
  for (const real of [() => realpathSync(path), () => join(realpathSync(dirname(path)), basename(path))]) {
    try {
      return real();
    } catch {
      // not there yet: the next, or the path as given
    }
  }
  return resolve(path);
}

/** The files of the lock of the database at `path`: the lock itself and its sidecar. */
export function lockFiles(path: string): { lock: string; holder: string } {
  return { lock: `${path}.lock`, holder: `${path}.lock.pid` };
}

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof h.pid === 'number' ? { pid: h.pid, command: String(h.command), since: String(h.since) } : null;
  } catch {
    return null;
  }
}

/**
 * Refuses a symbolic link at any of the files made beside the database: the lock would be taken on,
 * or SQLite would write its log into, whatever the link points at, the database itself say (a lock
 * linked to it set the database out of WAL mode and held it; SQLite refuses a linked -wal only as
 * "unable to open database file").
 */
function refuseLinks(paths: string[]): void {
  for (const p of paths)
    if (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink())
      throw new Error(
        `${p} is a symbolic link (to ${readlinkSync(p)}): the server makes this file itself, beside the ` +
          'database, and would write through the link; remove the link',
      );
}

export interface LockOptions {
  /**
   * Run once the lock is won, before the file's names are counted (without it they are counted
   * first): `restore` removes there the second name a restore killed midway left, which only a
   * holder of this lock can have made (src/db/sqlite/restore.ts).
   */
  tidy?: () => void;
}

/**
 * Takes the writer lock of the SQLite database at `path` for this process, or throws LockHeld at
 * once (no waiting). `command` names this process to whoever is refused, e.g. `swe-scoring serve`.
 * A database in memory has no lock to take.
 */
export function holdWriterLock(path: string, command: string, options: LockOptions = {}): WriterLock {
  if (path === ':memory:') return { release() {} };
  const file = statSync(path, { throwIfNoEntry: false });
  if (file?.isDirectory()) throw new Error(`${path} is a folder, not a database file`);
  // A lock and a -wal go beside each name of the file: through a hard link a second writer would
  // take a lock of its own, and the two would corrupt the file. One name, one lock.
  const oneName = () => {
    const links = statSync(path, { throwIfNoEntry: false })?.nlink ?? 1;
    if (links > 1)
      throw new Error(
        `${path} has ${links} names (hard links): each would take a lock and a -wal of its own, and two ` +
          `writers would corrupt it; remove the other names (find / -xdev -samefile ${path}), or copy the ` +
          'database with `swe-scoring backup`',
      );
  };
  if (!options.tidy) oneName();
  makePrivateDir(dirname(path));
  const real = realDatabasePath(path);
  const files = lockFiles(real);
  refuseLinks([files.lock, files.holder, `${real}-wal`, `${real}-shm`, `${real}-journal`]);
  createPrivateFile(files.lock);
  // No busy timeout: a held lock is said at once. The journal stays in memory: no -journal file.
  const db = new Database(files.lock, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new LockHeld(path, readHolder(files.holder));
    throw e;
  }
  try {
    options.tidy?.();
    oneName();
  } catch (e) {
    db.close();
    throw e;
  }
  const me: Holder = { pid: process.pid, command, since: new Date().toISOString() };
  // Written beside and renamed into place: a refused process never reads half a file.
  const temporary = `${files.holder}.${process.pid}`;
  try {
    // Made anew ('wx'): a link left at the name is not followed.
    rmSync(temporary, { force: true });
    writeFileSync(temporary, `${JSON.stringify(me)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(temporary, 0o600);
    renameSync(temporary, files.holder);
  } catch (e) {
    db.close();
    rmSync(temporary, { force: true });
    throw e;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      // The sidecar goes first, while the lock is still ours: the next holder's is never removed. A
      // folder made read-only meanwhile keeps it (it only names a holder: the next one writes its
      // own over it), and the lock itself is released all the same.
      try {
        if (readHolder(files.holder)?.pid === process.pid) rmSync(files.holder, { force: true });
      } catch {
        // left in place, see above
      }
      db.close();
    },
  };
}
