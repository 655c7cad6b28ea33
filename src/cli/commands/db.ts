// `swe-scoring db copy --from A --to B`: a whole database from SQLite to PostgreSQL or back
// (src/tools/copy does the work; this is its command line).
import { parseArgs } from 'node:util';
import { CopyError, copyDatabase, describeEndpoint, parseEndpoint, type CopyProgress } from '../../tools/copy/index.js';
import { CliError, type Command } from '../command.js';

const HELP = `Usage: swe-scoring db copy --from SOURCE --to TARGET

Copies every table of a swe-scoring database from SOURCE to TARGET, each a SQLite file path or a
postgres://user:password@host:port/database URL: SQLite to PostgreSQL to move a deployment over
(DATABASE_URL), PostgreSQL to SQLite to move back, or either to its own kind.

  --from SOURCE   the database to read. Read in one consistent snapshot, so a server may keep
                  running on it; rows written after the copy starts are not copied.
  --to TARGET     the database to write: migrated first (a SQLite file is created if missing),
                  and it must hold no rows. Written in one transaction: all or nothing.

Every value is kept exactly, run and audit sequence numbers and their counters included. Prints
each table's row count, checked in the target before the transaction commits. Exit status 0 when
copied, 1 when refused or failed (the target is then left as it was), 2 for a wrong command line.

Moving over: stop the writers (or accept that later writes stay behind), copy, then start the
servers with DATABASE_URL set to TARGET.`;

const fmt = (n: number) => n.toLocaleString('en-US');

export const dbCommand: Command = {
  help: HELP,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub !== 'copy') {
      console.error(`${sub === undefined ? 'db needs a subcommand' : `unknown db subcommand ${sub}`}\n\n${HELP}`);
      return 2;
    }
    const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' } } });
    if (!values.from || !values.to)
      throw new CliError('--from SOURCE and --to TARGET are both required (see swe-scoring db --help)', [], 2);
    const from = parseEndpoint(values.from);
    const to = parseEndpoint(values.to);
    console.error(`copying ${describeEndpoint(from)} to ${describeEndpoint(to)}`);
    // Plain progress lines every few seconds on stderr, for the tables that take that long.
    let last = performance.now();
    const onProgress = (p: CopyProgress) => {
      const now = performance.now();
      if (now - last < 5000) return;
      last = now;
      console.error(`  ${p.table}: ${fmt(p.copied)} of ${fmt(p.total)} rows`);
    };
    try {
      const result = await copyDatabase(from, to, onProgress);
      const width = Math.max(...result.tables.map((t) => t.table.length));
      console.log(`${'table'.padEnd(width)}  ${'rows'.padStart(12)}  ${'seconds'.padStart(8)}`);
      for (const t of result.tables)
        console.log(`${t.table.padEnd(width)}  ${fmt(t.rows).padStart(12)}  ${(t.ms / 1000).toFixed(1).padStart(8)}`);
      const total = result.tables.reduce((n, t) => n + t.rows, 0);
      console.log(
        `copied ${fmt(total)} rows in ${(result.ms / 1000).toFixed(1)} s; counts checked in the target; ` +
          `run sequence ${result.counters.runs}, audit sequence ${result.counters.audit_log}`,
      );
      return 0;
    } catch (e) {
      if (e instanceof CopyError) throw new CliError(`${e.message}`);
      // A database error (a constraint, a lost connection) is said as such; the target rolled back.
      const err = e as Error & { code?: string };
      if (typeof err.code === 'string' || err.name === 'SqliteError')
        throw new CliError(`${err.message}${err.code ? ` (${err.code})` : ''}; nothing was written to the target`);
      throw e;
    }
  },
};
