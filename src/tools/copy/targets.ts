// The copy's targets (src/tools/copy/index.ts): an empty SQLite file or PostgreSQL database,
// migrated first and written in one transaction.
import { openDatabase } from '../../db/client.js';
import { arrayLiteral, migratePostgres } from '../../db/tables.js';
import { holdWriterLock, LockHeld } from '../../db/writerLock.js';
import {
  columnList,
  CopyError,
  copyTables,
  describeEndpoint,
  NOT_COPIED,
  q,
  type CopyTable,
  type Counters,
  type Row,
  type Value,
} from './common.js';
import { connect } from './sources.js';

export interface Target {
  /** Starts the transaction and refuses a target that holds any row. */
  begin(): Promise<void>;
  insert(t: CopyTable, rows: Row[]): Promise<void>;
  /** Row counts of every table, inside the transaction. */
  counts(tables: CopyTable[]): Promise<Record<string, number>>;
  /** Sets the sequence counters, then commits. */
  commit(counters: Counters): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

const notEmpty = (where: string, table: string) =>
  new CopyError(`the target ${where} is not empty: table ${table} holds rows. Copy only into an empty database.`);

function lockTarget(path: string) {
  try {
    return holdWriterLock(path, 'swe-scoring db copy');
  } catch (e) {
    if (e instanceof LockHeld) throw new CopyError(`${e.message}; stop it first: nothing was copied`);
    throw e;
  }
}

export function sqliteTarget(path: string): Target {
  // One writer per SQLite file (src/db/writerLock.ts): a file a server runs on is refused.
  const lock = lockTarget(path);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path); // creates the file if needed and applies the migrations
  } catch (e) {
    lock.release();
    throw e;
  }
  const c = db.$client;
  c.defaultSafeIntegers(true);
  const tables = copyTables();
  const inserts = new Map(
    tables.map((t) => [
      t.name,
      c.prepare(`INSERT INTO ${q(t.name)} (${columnList(t)}) VALUES (${t.columns.map(() => '?').join(', ')})`),
    ]),
  );
  const toSqlite = (v: Value) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
  return {
    async begin() {
      // IMMEDIATE: the write lock now, so no other writer slips in between the check and the copy.
      c.exec('BEGIN IMMEDIATE');
      for (const t of tables) {
        if (c.prepare(`SELECT 1 FROM ${q(t.name)} LIMIT 1`).get() !== undefined) throw notEmpty(path, t.name);
      }
    },
    async insert(t, rows) {
      const stmt = inserts.get(t.name)!;
      for (const row of rows) stmt.run(row.map(toSqlite));
    },
    async counts(list) {
      return Object.fromEntries(
        list.map((t) => [
          t.name,
          Number(
            c
              .prepare(`SELECT count(*) FROM ${q(t.name)}`)
              .pluck()
              .get(),
          ),
        ]),
      );
    },
    async commit(counters) {
      // Inserting explicit numbers left each counter at the largest one (and an emptied database
      // keeps its old counters): set the source's. No row where nothing was ever numbered, as in SQLite.
      for (const [name, value] of Object.entries(counters)) {
        c.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(name);
        if (value > 0n) c.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(name, value);
      }
      c.exec('COMMIT');
    },
    async rollback() {
      if (c.inTransaction) c.exec('ROLLBACK');
    },
    async close() {
      c.close();
      lock.release();
    },
  };
}

/** A copy-form value as the text of a PostgreSQL array element (exact), or null. */
function toPostgres(v: Value): string | null {
  if (v === null || typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return v.toString();
  // String(n) is the shortest text that reads back as the same double, except that it drops -0's sign.
  return Object.is(v, -0) ? '-0' : String(v);
}

export async function postgresTarget(url: string): Promise<Target> {
  const where = describeEndpoint({ engine: 'postgres', url });
  try {
    await migratePostgres(url);
  } catch (e) {
    throw new CopyError(`cannot migrate the target ${where}: ${(e as Error).message}`);
  }
  const client = await connect(url, 'target');
  const tables = [...copyTables().map((t) => t.name), ...NOT_COPIED];
  return {
    async begin() {
      await client.query('BEGIN');
      // Held to the commit: no server writes into the tables between the check and the copy.
      await client.query(`LOCK TABLE ${tables.map(q).join(', ')} IN EXCLUSIVE MODE`);
      for (const name of tables) {
        const { rows } = await client.query(`SELECT 1 FROM ${q(name)} LIMIT 1`);
        if (rows.length > 0) throw notEmpty(where, name);
      }
    },
    async insert(t, rows) {
      // One statement per page whatever its size: a column per array (docs/POSTGRES.md, ingest), each
      // a literal built in one pass (pg's own builder would be most of the copy's time, in the GC).
      const arrays = t.columns.map((_, i) => arrayLiteral(rows.map((row) => toPostgres(row[i]!))));
      const casts = t.columns.map((c, i) => `$${i + 1}::${c.pgType}[]`).join(', ');
      const overriding = t.identity ? ' OVERRIDING SYSTEM VALUE' : '';
      await client.query(
        `INSERT INTO ${q(t.name)} (${columnList(t)})${overriding} SELECT * FROM unnest(${casts})`,
        arrays,
      );
    },
    async counts(list) {
      const counts: Record<string, number> = {};
      for (const t of list) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(t.name)}`);
        counts[t.name] = Number(rows[0]!.n);
      }
      return counts;
    },
    async commit(counters) {
      // PostgreSQL only: each competition's write version starts at 1 (the competition_versions table).
      await client.query('INSERT INTO competition_versions (competition_id, version) SELECT id, 1 FROM competitions');
      for (const [name, value] of Object.entries(counters)) {
        // setval(s, v, true): the next number is v + 1; (s, 1, false): the next is 1, as when new.
        await client.query(`SELECT setval(pg_get_serial_sequence($1, 'seq'), $2, $3)`, [
          name,
          value > 0n ? value.toString() : '1',
          value > 0n,
        ]);
      }
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => {});
    },
    async close() {
      await client.end();
    },
  };
}
