// The PostgreSQL connection pool the server runs on (DATABASE_URL), and the test that tells "the
// database cannot be reached now" (a 503) from a real error (a 4xx or a 500).
//
// Every wait is bounded (issue 15: never hang past a stated timeout): getting a connection, a
// statement on the server, an answer on the client side (a connection whose network went silent),
// and a transaction left idle by a process that went away. See docs/POSTGRES.md, "Connections,
// timeouts and faults", for the defaults and why.
import pg from 'pg';
import { migratePostgres } from './migrate.js';

/** Where the pool and the notifier report what they survive (a pino logger fits). */
export interface PgLogger {
  warn(obj: object, msg: string): void;
}

export interface PostgresOptions {
  /** Connections this process keeps at most (default 10). */
  max?: number;
  /** Wait for a new connection, or for a free one when all `max` are busy (default 5 s). */
  connectTimeoutMs?: number;
  /** Server side: a statement running longer is cancelled, SQLSTATE 57014 (default 10 s). */
  statementTimeoutMs?: number;
  /** Client side: a query with no answer this long fails and its connection is dropped (default statement + 2 s). */
  queryTimeoutMs?: number;
  /** Server side: a session idle inside a transaction this long is ended, its locks released (default 10 s). */
  idleInTransactionTimeoutMs?: number;
  /** An idle pooled connection is closed after this long (default 30 s). */
  idleTimeoutMs?: number;
  /** Shown in pg_stat_activity (default `swe-scoring`). */
  applicationName?: string;
  logger?: PgLogger;
}

export const POSTGRES_DEFAULTS = {
  max: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  applicationName: 'swe-scoring',
} as const;

/** The client-side timeout leaves room for the server's own cancel (statement_timeout) to come first. */
const QUERY_TIMEOUT_MARGIN_MS = 2_000;

const INT8_OID = 20;

/**
 * int8 (count(*), bigint columns read by raw SQL) as a JS number, refused past 2^53 - 1 rather
 * than rounded: the query fails with a RangeError. Drizzle's own queries pass their own type
 * parsers (the global pg.types) and convert bigint columns themselves (`mode: 'number'`).
 */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is not exact as a JS number`);
  return n;
}

function getTypeParser(oid: number, format: 'text' | 'binary' = 'text'): (value: string) => unknown {
  if (oid === INT8_OID && format === 'text') return parseInt8;
  return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
}

/** Per pool, not pg.types.setTypeParser: the global parsers are shared by every pg client in the process. */
const types: pg.CustomTypesConfig = { getTypeParser };

/** Applies pending migrations, then opens the pool. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<pg.Pool> {
  await migratePostgres(url, { connectTimeoutMs: options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs });
  return createPool(url, options);
}

/** The pool alone, on a database already migrated. */
export function createPool(url: string, options: PostgresOptions = {}): pg.Pool {
  const statementTimeoutMs = options.statementTimeoutMs ?? POSTGRES_DEFAULTS.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? POSTGRES_DEFAULTS.max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: options.queryTimeoutMs ?? statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    idle_in_transaction_session_timeout:
      options.idleInTransactionTimeoutMs ?? POSTGRES_DEFAULTS.idleInTransactionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs ?? POSTGRES_DEFAULTS.idleTimeoutMs,
    application_name: options.applicationName ?? POSTGRES_DEFAULTS.applicationName,
    // Probes idle connections, so one whose peer vanished is found dead by TCP, not by a query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types,
  });
  // An idle client whose server went away emits 'error' on the pool; unheard, it ends the process.
  // The pool has already dropped that client; the next query opens a new one.
  pool.on('error', (err) => options.logger?.warn({ err }, 'PostgreSQL: an idle pooled connection failed'));
  // A query that hit the client-side timeout is still on its connection, unanswered, and the next
  // query would queue behind it. pool.query releases such a client with the error, which drops
  // it; a client checked out by hand (drizzle's transactions) comes back with a plain release(),
  // which would keep it. Ending it here, before the pool decides, makes the pool drop it too.
  pool.on('release', (err, client) => {
    if (!err && (client as unknown as { readyForQuery?: boolean }).readyForQuery === false) void client.end();
  });
  return pool;
}

/** Node's socket errors that mean the server is out of reach. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs outside class 08 (connection exception) that mean "not now": admin_shutdown,
 * crash_shutdown, cannot_connect_now, too_many_connections, and query_canceled, which is what
 * statement_timeout raises (a statement that ran out of its stated time on a busy server).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** The messages pg and pg-pool give their own timeouts and lost connections (they carry no code). */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated\b/, // 'Connection terminated', '… unexpectedly', '… due to connection timeout'
  /^Query read timeout$/, // query_timeout
  /^timeout exceeded when trying to connect$/, // the pool was full for connectionTimeoutMillis
  /^timeout expired$/, // a lone pg.Client's connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable$/,
];

/**
 * True when `err` means the database cannot be reached or cannot answer now (a 503: retry later),
 * false for a real error (syntax, constraint, a value out of range). Follows `cause` (drizzle
 * wraps driver errors in DrizzleQueryError) and AggregateError's `errors` (a host name with
 * several addresses).
 */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 5) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true; // class 08: connection exception
  }
  if (UNAVAILABLE_MESSAGES.some((re) => re.test(err.message))) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isUnavailable(e, depth + 1))) return true;
  return isUnavailable(err.cause, depth + 1);
}
