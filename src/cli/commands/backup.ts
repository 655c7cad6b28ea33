// `swe-scoring backup --out FILE`: a consistent copy of DATABASE_PATH, safe while the server runs.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { DEFAULT_DATABASE_PATH } from '../../config.js';
import { sqliteOnlineBackup } from '../../db/sqlite/backup.js';
import { backupToFile, ON_POSTGRES } from '../../services/backup.js';
import { serverFileAt } from '../../services/backupTarget.js';
import { CliError, type Command } from '../command.js';

export const backupCommand: Command = {
  help: `Usage: swe-scoring backup --out FILE [--force]

Copies DATABASE_PATH (default ${DEFAULT_DATABASE_PATH}) to FILE with SQLite's backup API: one
consistent state holding every write acknowledged before the copy began, while the server keeps
serving. The same copy is served by GET /v1/admin/backup (admin token).

  --out FILE   where to write the copy (mode 0600); refused if it exists, unless --force, and
               always refused when it is a file of the live database (the database itself, its
               -wal or -shm) or one of the server's secrets (its key files, its admin token file),
               whichever path or link names it
  --force      replace FILE (and remove a -wal and -shm beside it) once the copy is complete

The copy is written to a temporary file in FILE's folder and renamed to FILE when whole: a failed
backup leaves FILE as it was.

Restore: stop the server, then swe-scoring restore --from FILE (it keeps the database it replaces).`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { out: { type: 'string' }, force: { type: 'boolean' } } });
    if (!values.out) throw new CliError('--out FILE is required (see swe-scoring backup --help)');
    // The server reads DATABASE_URL first: a SQLite file left from before a move is not its data.
    if (process.env.DATABASE_URL) throw new CliError(`DATABASE_URL is set: ${ON_POSTGRES}`);
    const source = process.env.DATABASE_PATH || DEFAULT_DATABASE_PATH;
    if (!existsSync(source)) throw new CliError(`no database at ${source}: set DATABASE_PATH`);
    const out = resolve(values.out);
    // A file of the live database, or a secret no restore brings back: either would be overwritten.
    const taken = serverFileAt(process.env, source, out);
    if (taken) throw new CliError(`refused: --out ${values.out} is ${taken}; write the copy elsewhere`);
    if (existsSync(out) && statSync(out).isDirectory())
      throw new CliError(`${values.out} is a folder: --out names the file to write`);
    if (existsSync(out) && !values.force) throw new CliError(`${values.out} exists; pass --force to overwrite it`);
    if (!existsSync(dirname(out)))
      throw new CliError(
        `no folder ${dirname(out)}: create it first (mkdir -p -m 0700 ${dirname(out)}); the copy holds the answer keys`,
      );
    // A connection of its own, read-only: the server's writes go on meanwhile (WAL).
    let db: Database.Database;
    try {
      db = new Database(source, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma('schema_version'); // reads the header: "file is not a database" here, not half-way
    } catch (err) {
      throw new CliError(`cannot read ${source} (DATABASE_PATH) as a SQLite database: ${(err as Error).message}`);
    }
    const started = performance.now();
    try {
      let bytes: number;
      try {
        bytes = await backupToFile(sqliteOnlineBackup(db), out);
      } catch (err) {
        throw new CliError(`cannot write the copy to ${values.out}: ${(err as Error).message}`);
      }
      console.log(JSON.stringify({ out, bytes }));
      console.error(
        `backed up ${source} to ${values.out} (${(bytes / 1024 / 1024).toFixed(1)} MiB) in ${Math.round(performance.now() - started)} ms`,
      );
      return 0;
    } finally {
      db.close();
    }
  },
};
