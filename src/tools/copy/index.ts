// `swe-scoring db copy`: every row of a swe-scoring database from one engine to another (SQLite
// file or PostgreSQL), for moving a deployment over to PostgreSQL and back.
//
// - The source is read in one consistent snapshot (a SQLite read transaction; PostgreSQL
//   REPEATABLE READ READ ONLY), so a live server can keep writing to it meanwhile.
// - The target is migrated first, must be empty, and is written in ONE transaction: all or
//   nothing. Row counts are checked inside that transaction before it commits.
// - Tables go in foreign-key order, a bounded page at a time (runs can be millions of rows).
// - Values are carried exactly: integers as bigint (never through a double), doubles as doubles,
//   SQLite 0/1 as booleans, text (JSON included) as the same string. The run and audit sequence
//   numbers are kept, and so is each sequence's counter, which can be above the largest number in
//   use (a deleted run takes a number; deleted_runs.deleted_seq shares the runs sequence).
import { resolve } from 'node:path';
import { CopyError, copyTables, type Counters, type Endpoint } from './common.js';
import { postgresSource, sqliteSource } from './sources.js';
import { postgresTarget, sqliteTarget, type Target } from './targets.js';

export { CopyError, copyTables, describeEndpoint, parseEndpoint, type Endpoint } from './common.js';

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyResult {
  /** Rows of each table in the source snapshot, equal to the rows counted in the target. */
  tables: { table: string; rows: number; ms: number }[];
  counters: Counters;
  ms: number;
}

/** The columns numbered by a sequence. The runs sequence numbers deletions too (src/db/runs.ts). */
const NUMBERED: Record<string, { counter: keyof Counters; column: string }> = {
  runs: { counter: 'runs', column: 'seq' },
  deleted_runs: { counter: 'runs', column: 'deleted_seq' },
  audit_log: { counter: 'audit_log', column: 'seq' },
};

const endpointKey = (e: Endpoint) => (e.engine === 'sqlite' ? `sqlite:${resolve(e.path)}` : e.url);

/** Copies every row of `from` into the empty database `to`, in one transaction on `to`. */
export async function copyDatabase(
  from: Endpoint,
  to: Endpoint,
  /** Told after each page; the copy waits for a promise it returns. */
  onProgress: (p: CopyProgress) => void | Promise<void> = () => {},
): Promise<CopyResult> {
  if (endpointKey(from) === endpointKey(to)) throw new CopyError('the source and the target are the same database');
  const started = performance.now();
  const tables = copyTables();
  const source = from.engine === 'sqlite' ? await sqliteSource(from.path) : await postgresSource(from.url);
  let target: Target | undefined;
  try {
    target = to.engine === 'sqlite' ? sqliteTarget(to.path) : await postgresTarget(to.url);
    await target.begin();
    try {
      const done: CopyResult['tables'] = [];
      // The counters never fall below a number in use, whatever the source's counter says.
      const counters: Counters = { ...source.counters };
      for (const t of tables) {
        const tableStarted = performance.now();
        const total = source.counts[t.name]!;
        const numbered = NUMBERED[t.name];
        const seqColumn = numbered ? t.columns.findIndex((c) => c.name === numbered.column) : -1;
        let copied = 0;
        for await (const page of source.pages(t)) {
          await target.insert(t, page);
          if (numbered) {
            for (const row of page) {
              const seq = row[seqColumn] as bigint;
              if (seq > counters[numbered.counter]) counters[numbered.counter] = seq;
            }
          }
          copied += page.length;
          await onProgress({ table: t.name, copied, total });
        }
        if (copied !== total)
          throw new CopyError(`${t.name}: the source snapshot counted ${total} rows but ${copied} were read`);
        done.push({ table: t.name, rows: copied, ms: performance.now() - tableStarted });
      }
      const written = await target.counts(tables);
      for (const t of tables) {
        if (written[t.name] !== source.counts[t.name])
          throw new CopyError(
            `${t.name}: the target holds ${written[t.name]} rows, the source ${source.counts[t.name]}: nothing copied`,
          );
      }
      await target.commit(counters);
      return { tables: done, counters, ms: performance.now() - started };
    } catch (e) {
      await target.rollback();
      throw e;
    }
  } finally {
    await target?.close();
    await source.close();
  }
}
