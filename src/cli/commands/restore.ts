// `swe-scoring restore --from BACKUP`: puts a backup in place of DATABASE_PATH, with the server
// stopped, keeping the database it replaces (src/db/sqlite/restore.ts does the work).
import { existsSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_PATH, secretFiles } from '../../config.js';
import { checkBackup, copyBackup, forgetUnfinished, replaceDatabase, RestoreRefused } from '../../db/sqlite/restore.js';
import { holdWriterLock, LockHeld, realDatabasePath } from '../../db/writerLock.js';
import { serverFileAt } from '../../services/backupTarget.js';
import { CliError, type Command } from '../command.js';

const ON_POSTGRES =
  'this server stores its data in PostgreSQL: restore it with pg_restore from a pg_dump, or with ' +
  '`swe-scoring db copy --from BACKUP.db --to postgres://…` into an empty database (docs/POSTGRES.md)';

const fmt = (n: number) => n.toLocaleString('en-US');

export const restoreCommand: Command = {
  help: `Usage: swe-scoring restore --from BACKUP

Puts BACKUP (a file written by swe-scoring backup or GET /v1/admin/backup) in place of
DATABASE_PATH (default ${DEFAULT_DATABASE_PATH}). Stop the server first: while one holds the
database the restore is refused, naming its process, and a server started during the restore is
refused in turn.

  --from BACKUP   the backup to restore. Checked before anything changes: a SQLite file,
                  PRAGMA quick_check ok, a swe-scoring database, its schema not newer than this
                  swe-scoring's (an older one is migrated by the server at its next start). Refused
                  when it names a file of the live database or one of the server's secrets.

The database it replaces is checkpointed (its -wal is then in the file) and kept beside it as
DATABASE_PATH.before-restore-<UTC time> (mode 0600): delete it once the restored one serves. The
backup is copied beside the database (mode 0600, fsynced) and renamed into place; no -wal or -shm
of the old file stays beside it. A restore interrupted at any point leaves the old database or the
new one, whole: run it again.

The keys are not in the database and are kept as they are: the snapshot-signing key, the server key
and the admin token file. On PostgreSQL (DATABASE_URL) use pg_restore, or db copy (docs/POSTGRES.md).`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { from: { type: 'string' } } });
    if (!values.from) throw new CliError('--from BACKUP is required (see swe-scoring restore --help)', [], 2);
    if (process.env.DATABASE_URL) throw new CliError(`DATABASE_URL is set: ${ON_POSTGRES}`);
    const configured = process.env.DATABASE_PATH || DEFAULT_DATABASE_PATH;
    const from = resolve(values.from);
    const taken = serverFileAt(process.env, configured, from);
    if (taken) throw new CliError(`refused: --from ${values.from} is ${taken}; name a backup`);
    const backup = statSync(from, { throwIfNoEntry: false });
    if (!backup) throw new CliError(`no file ${values.from}: --from names a backup written by swe-scoring backup`);
    if (!backup.isFile()) throw new CliError(`${values.from} is not a file: --from names the backup file`);
    // The file itself, its folders' and its own links resolved: a link at DATABASE_PATH stays a link.
    const database = realDatabasePath(configured);
    let lock;
    try {
      lock = holdWriterLock(database, 'swe-scoring restore', { tidy: () => forgetUnfinished(database) });
    } catch (e) {
      if (e instanceof LockHeld) throw new CliError(`refused: ${e.message}; stop it, then restore`);
      throw new CliError(`refused: ${(e as Error).message}`);
    }
    let replacing = false;
    try {
      const copy = copyBackup(from, values.from, database);
      try {
        const contents = checkBackup(copy, values.from);
        replacing = true;
        const done = replaceDatabase(database, copy, new Date());
        console.log(JSON.stringify({ database, from, keptAside: done.keptAside, ...contents }));
        console.error(
          [
            `restored ${values.from} to ${database}: ${fmt(contents.competitions)} competitions, ${fmt(contents.runs)} runs` +
              (contents.pending > 0
                ? ` (an older schema: the server applies ${contents.pending} migrations at its next start)`
                : ''),
            done.keptAside
              ? `the database it replaced is kept as ${done.keptAside}: delete it once the restored one serves`
              : `there was no database at ${database}: nothing kept aside`,
            ...done.logs.map(
              (log) => `kept aside the log of a file that was no SQLite database: ${log} (of no use to a server)`,
            ),
            ...keptFiles(configured),
          ].join('\n'),
        );
        return 0;
      } finally {
        for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(copy + suffix, { force: true });
      }
    } catch (e) {
      if (e instanceof RestoreRefused) throw new CliError(e.message);
      // A file system's or SQLite's failure (a full disk, a folder that takes no hard link): said in
      // one line; whatever step it stopped at, the database is the old one or the new one, whole.
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string')
        throw new CliError(
          `cannot restore (${(e as Error).message}): ` +
            (replacing
              ? `${database} is the old database or the restored one, whole; run the restore again once the cause is fixed`
              : `nothing was changed; fix the cause, then restore again`),
        );
      throw e;
    } finally {
      lock.release();
    }
  },
};

/** The server's files beside the database that a restore leaves as they are: those that exist. */
function keptFiles(databasePath: string): string[] {
  const kept = secretFiles(process.env, databasePath).filter((f) => existsSync(f.path));
  return kept.length === 0
    ? []
    : ['not in the database, and kept as they are:', ...kept.map((f) => `  ${f.what}: ${f.path}`)];
}
