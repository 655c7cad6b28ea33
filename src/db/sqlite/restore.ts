// Putting a backup in place of the SQLite database (`swe-scoring restore`, src/cli/commands/restore.ts),
// with the writer lock held (src/db/writerLock.ts): no server runs meanwhile. The backup is copied
// beside the database and checked there, so what is checked is what goes in; the database it
// replaces is kept under another name; and a restore killed at any point (SIGKILL, a power cut)
// leaves a database that opens and is the old one or the new one, whole, with no log beside it that
// belongs to another file. Why the order of `replaceDatabase` gives that is said there.
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
  chmodSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { knownMigrations } from '../client.js';

/** The restore cannot go on; the message says what is wrong and what to do. Nothing was changed. */
export class RestoreRefused extends Error {}

/** What a checked backup holds. */
export interface BackupContents {
  competitions: number;
  runs: number;
  /** Migrations it has, and this build's that it has not yet (the server applies them at start). */
  migrations: number;
  pending: number;
}

/** The files beside a database that hold its writes until they are in the file itself. */
const LOGS = ['-wal', '-journal'];
const size = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A copy being restored (the process's own), and one left by a restore that was killed. */
const temporaryName = (base: string) => `.${base}.restore-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
const temporaryPattern = (base: string) => new RegExp(`^\\.${escape(base)}\\.restore-\\d+-[0-9a-f]+\\.tmp`);
const keptAsidePattern = (base: string) => new RegExp(`^${escape(base)}\\.before-restore-[0-9TZ-]+$`);

/**
 * Copies the backup at `from`, byte for byte, to a new file (mode 0600) beside the database at
 * `database` (a real path), and fsyncs it; its path. A backup with a log beside it is refused: the log may hold its last writes.
 */
export function copyBackup(from: string, label: string, database: string): string {
  for (const suffix of LOGS)
    if (size(from + suffix) > 0)
      throw new RestoreRefused(
        `--from ${label} has a log beside it (${from}${suffix}, ${size(from + suffix)} bytes): it is a database in ` +
          `use or a copy taken with its log; back it up with DATABASE_PATH=${from} swe-scoring backup --out FILE ` +
          'and restore FILE',
      );
  const to = join(dirname(database), temporaryName(basename(database)));
  const source = openSync(from, 'r');
  let target: number | undefined;
  try {
    target = openSync(to, 'wx', 0o600);
    chmodSync(to, 0o600); // whatever the umask
    const chunk = Buffer.alloc(1 << 20);
    for (let n; (n = readSync(source, chunk, 0, chunk.length, null)) > 0;)
      // A write may take fewer bytes than given (a disk nearly full): the rest is written again,
      // and a full disk then says ENOSPC, rather than leaving a short copy.
      for (let done = 0; done < n;) done += writeSync(target, chunk, done, n - done);
    fsyncSync(target);
  } catch (e) {
    rmSync(to, { force: true });
    throw e;
  } finally {
    closeSync(source);
    if (target !== undefined) closeSync(target);
  }
  return to;
}

/**
 * Checks that the file at `path` is a whole swe-scoring database this build can serve: SQLite,
 * `PRAGMA quick_check` ok, the migrations table and the main tables there, no migration newer than
 * this build's (an older schema is migrated by the server at start). `label` names it to the user.
 */
export function checkBackup(path: string, label: string): BackupContents {
  const db = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    let problems: string[];
    try {
      // Its answer is 'ok', or lines (some rows hold several) under a header naming the schema.
      problems = (db.prepare('PRAGMA quick_check').pluck().all() as string[])
        .flatMap((row) => row.split('\n'))
        .filter((line) => line !== 'ok' && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_NOTADB')
        throw new RestoreRefused(`--from ${label} is not a SQLite database: name a file written by swe-scoring backup`);
      if (code === 'SQLITE_CORRUPT') problems = [(e as Error).message];
      else throw e;
    }
    if (problems.length > 0)
      throw new RestoreRefused(
        `--from ${label} is damaged (PRAGMA quick_check: ${problems[0]}${problems.length > 1 ? `, and ${problems.length - 1} more problems` : ''}): restore another backup`,
      );
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('__drizzle_migrations', 'competitions', 'runs')",
      )
      .pluck()
      .all() as string[];
    const applied = tables.includes('__drizzle_migrations')
      ? (db.prepare('SELECT count(*) AS n, max(created_at) AS newest FROM __drizzle_migrations').get() as {
          n: number;
          newest: number | null;
        })
      : { n: 0, newest: null };
    if (tables.length < 3 || applied.newest === null)
      throw new RestoreRefused(
        `--from ${label} is a SQLite database but not a swe-scoring one (no ${tables.includes('__drizzle_migrations') ? 'migration in its migrations table' : ['__drizzle_migrations', 'competitions', 'runs'].filter((t) => !tables.includes(t)).join(', ')}): name a file written by swe-scoring backup`,
      );
    const known = knownMigrations();
    const newestKnown = known.reduce((a, b) => (b.when > a.when ? b : a));
    if (Number(applied.newest) > newestKnown.when)
      throw new RestoreRefused(
        `--from ${label} has a newer schema than this swe-scoring (a migration of ${new Date(Number(applied.newest)).toISOString()}; ` +
          `this build's newest is ${newestKnown.tag} of ${new Date(newestKnown.when).toISOString()}): restore it with the version that wrote it, or a later one`,
      );
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    return {
      competitions: count('competitions'),
      runs: count('runs'),
      migrations: applied.n,
      pending: known.filter((m) => m.when > Number(applied.newest)).length,
    };
  } finally {
    db.close();
  }
}

/**
 * Removes what an earlier restore, killed midway, left beside the database at `database` (a real
 * path): its temporary copy, and a second name of the database file (made in step 4 of
 * `replaceDatabase` and not yet replaced by step 5: removing it loses nothing, the file keeps its
 * own name). Only with the writer lock held (holdWriterLock's `tidy`): a restore running meanwhile
 * would otherwise lose its kept-aside name.
 */
export function forgetUnfinished(database: string): void {
  const dir = dirname(database);
  const base = basename(database);
  const file = statSync(database, { throwIfNoEntry: false });
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (file && file.nlink > 1 && keptAsidePattern(base).test(name)) {
      const other = statSync(path, { throwIfNoEntry: false });
      if (other && other.ino === file.ino && other.dev === file.dev) unlinkSync(path);
    }
    if (temporaryPattern(base).test(name)) rmSync(path, { force: true });
  }
}

/** `<database>.before-restore-<UTC time>`, a name that neither it nor a log of it holds yet. */
function asideName(database: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z'); // 20261207T101436Z
  for (let i = 1; ; i++) {
    const aside = `${database}.before-restore-${stamp}${i > 1 ? `-${i}` : ''}`;
    if (!['', ...LOGS].some((suffix) => statSync(aside + suffix, { throwIfNoEntry: false }))) return aside;
  }
}

/**
 * Whether the database file's log is all in the file and gone: true once checkpointed; false when
 * the file is no SQLite database (nothing could be applied to it: its logs are kept aside as they
 * are). Refused when another process has it open, or it cannot be written.
 */
function checkpoint(database: string): boolean {
  let db: Database.Database | undefined;
  const open = `another process has ${database} open (fuser -v ${database} names it): end it, then restore`;
  try {
    db = new Database(database, { fileMustExist: true, timeout: 0 });
    db.pragma('schema_version'); // reads the file: a hot rollback journal is rolled back here
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy) throw new RestoreRefused(open);
  } catch (e) {
    if (e instanceof RestoreRefused) throw e;
    const code = String((e as { code?: string }).code);
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return false;
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) throw new RestoreRefused(open);
    throw new RestoreRefused(
      `cannot checkpoint ${database} before keeping it aside (${(e as Error).message}): nothing was changed`,
    );
  } finally {
    db?.close(); // the last connection: SQLite removes the emptied -wal and the -shm
  }
  for (const suffix of LOGS)
    if (size(database + suffix) > 0)
      throw new RestoreRefused(`${database}${suffix} is still there after a checkpoint: ${open}`);
  return true;
}

/**
 * Puts the checked copy at `copy` (in the database's folder, no log beside it) in place of the
 * database at `database` (a real path), keeping the file it replaces as
 * `<database>.before-restore-<UTC time>`. The order, and what a kill after each step leaves:
 *
 * 1. Checkpoint: the log goes into the file (SQLite keeps the file and its log a consistent pair
 *    throughout), then the emptied log and the -shm are removed as the connection closes. Killed
 *    here: the old database, with or without its log.
 * 2. Only when the file is no SQLite database (its log could not go in): its -wal and -journal are
 *    renamed to the kept-aside name before anything else moves. Killed here: the old file, as
 *    unreadable as before, with no log.
 * 3. An empty -wal, a -shm (an index any first connection rebuilds) and a -journal that is not hot
 *    (step 1 rolled a hot one back) are removed: they hold no write.
 * 4. The kept-aside name is made a hard link of the database file (mode 0600). Killed here: the old
 *    database, whole, under two names; the server refuses a file with two names, and the next
 *    restore removes the second first (forgetUnfinished).
 * 5. The copy is renamed onto the database's name, in one step: the name holds the old file or the
 *    new one, never neither (a server started on no file would make an empty one) and never a mix.
 *    No log is beside it: the old file's went in steps 1-3, and the copy's when its checking
 *    connection closed.
 * 6. The folder is fsynced, so that the names survive a power cut.
 */
export function replaceDatabase(
  database: string,
  copy: string,
  now: Date,
): { keptAside: string | null; logs: string[] } {
  for (const suffix of ['-wal', '-shm', '-journal'])
    if (statSync(copy + suffix, { throwIfNoEntry: false })) throw new Error(`${copy}${suffix} is beside the copy`);
  const exists = statSync(database, { throwIfNoEntry: false }) !== undefined;
  const readable = exists ? checkpoint(database) : false; // 1
  const aside = asideName(database, now);
  // Logs with writes in them are left only by a file that could not be checkpointed (else refused).
  const logs = readable ? [] : LOGS.filter((suffix) => size(database + suffix) > 0);
  for (const suffix of logs) renameSync(database + suffix, aside + suffix); // 2
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(database + suffix, { force: true }); // 3
  if (exists) {
    linkSync(database, aside); // 4
    chmodSync(aside, 0o600);
  }
  renameSync(copy, database); // 5
  syncFolder(dirname(database)); // 6
  return { keptAside: exists ? aside : null, logs: logs.map((suffix) => aside + suffix) };
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
