// What every PostgreSQL repository works through: one statement at a time on the transaction's
// client or, outside a transaction, on any client of the pool; and the write, which always runs in
// a transaction scoped to its competition (src/db/pg/store.ts) so that a competition's writers take
// turns and its write events are told after the commit.
import pg from 'pg';
import type { WriteEvent } from '../events.js';
import { databaseUnavailable, DomainError, unprocessable } from '../../errors.js';
import { isUnavailable } from './unavailable.js';
import { withArrayLiterals } from './arrayLiteral.js';

/**
 * int8 as a JS number: sums, counts and sequences. Exact because every token column and sum
 * carries a CHECK that keeps it within 2^53 - 1 (src/db/pg/schema.ts); the other int8 values
 * (counts, sequence numbers) stay far below. Set per query, so the pool may be anyone's.
 */
const INT8 = 20;
const defaultParser = pg.types.getTypeParser as (oid: number, format?: string) => unknown;
/** Refused past 2^53 - 1 rather than rounded, as the server's pool does (src/db/pg/client.ts). */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is not exact as a JS number`);
  return n;
}
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 && format !== 'binary'
      ? parseInt8
      : defaultParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Now, in UTC, in the bytes SQLite's strftime('%Y-%m-%dT%H:%M:%fZ','now') writes. */
export const NOW_TEXT = `to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The identity sequence of runs.seq (migrations/pg/0000_init.sql); deletions take numbers from it too. */
export const RUN_SEQUENCE = 'runs_seq_seq';

export interface QueryOptions {
  /** Rows as arrays: no object per row on the paths that read many. */
  array?: boolean;
  /** A prepared statement's name (per connection): hot statements are parsed and planned once. */
  name?: string;
}

export interface PgContext {
  /** Inside a transaction: statements run on its client and see its uncommitted writes. */
  readonly inTransaction: boolean;
  query<R = Record<string, unknown>>(text: string, values?: unknown[], options?: QueryOptions): Promise<R[]>;
  /** Rows affected by the statement. */
  execute(text: string, values?: unknown[], options?: QueryOptions): Promise<number>;
  /** Records a write event: told to the store's listeners after the transaction commits. */
  emit(event: WriteEvent): void;
  /**
   * Runs `fn` in a transaction about `competitionId`: the open one when there is one, else a new
   * one (the store's `transaction`), so a repository write is atomic and tells its events after
   * its commit on its own too.
   */
  write<T>(competitionId: string | undefined, fn: (ctx: PgContext) => Promise<T>): Promise<T>;
}

/**
 * The domain error for what the database answered: a database out of reach is ServiceUnavailable
 * (a 503), a CHECK refusal (on this schema, only a token count or sum past 2^53 - 1) a 422; any
 * other error stays as it is.
 */
export function mapPgError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if (isUnavailable(err)) return databaseUnavailable(err);
  if ((err as { code?: unknown }).code === '23514') {
    return unprocessable(
      'a token count or token sum would pass 2^53 - 1 and could no longer be added exactly; nothing was stored. ' +
        'Check the token counts sent',
    );
  }
  return err;
}

/** One statement on a client or the pool, with int8 as numbers and its failures as domain errors (mapPgError). */
export async function runQuery(
  on: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[] | undefined,
  options: QueryOptions | undefined,
): Promise<{ rows: unknown[]; rowCount: number | null }> {
  const config: pg.QueryConfig = {
    text,
    values: withArrayLiterals(values),
    types: PG_TYPES,
    ...(options?.name ? { name: options.name } : {}),
    ...(options?.array ? { rowMode: 'array' as const } : {}),
  };
  try {
    return await on.query(config);
  } catch (err) {
    throw mapPgError(err);
  }
}

/**
 * `fn`'s statements in one REPEATABLE READ READ ONLY transaction on a client of its own: they read
 * one state of the database, whatever commits meanwhile (a read of several statements that must
 * agree: the scoring input's tasks, miners and pairs; the stability report's criteria and verdicts).
 */
export async function inSnapshot<T>(pool: pg.Pool, fn: (query: PgContext['query']) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw mapPgError(err);
  });
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await fn(
      async <R>(text: string, values?: unknown[], options?: QueryOptions) =>
        (await runQuery(client, text, values, options)).rows as R[],
    );
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw mapPgError(err);
  } finally {
    client.release(broken);
  }
}
