// The PostgreSQL connection pool the server runs on (DATABASE_URL), and the test that tells "the
// database cannot be reached now" (a 503) from a real error (a 4xx or a 500).
//
// Every wait is bounded (never hang past a stated timeout): getting a connection, a
// statement on the server, an answer on the client side (a connection whose network went silent),
// and a transaction left idle by a process that went away. See docs/POSTGRES.md, "Connections,
// timeouts and faults", for the defaults and why.
import pg from 'pg';
import { applicationName } from '../applicationName.js';
import { migratePostgres } from './migrate.js';

/** Where the pool and the notifier report what they survive (a pino logger fits). */
export interface PgLogger {
  warn(obj: object, msg: string): void;
  /** A connection back (the notifier listening again); optional, since a warning-only logger has none. */
  info?(obj: object, msg: string): void;
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
  /**
   * The operator's name for this server process (SCORING_INSTANCE_LABEL), in the application_name
   * of each of its connections (../applicationName.ts); null or unset: none.
   */
  instanceLabel?: string | null;
  /** Shown in pg_stat_activity (default: the pool's name, ../applicationName.ts). */
  applicationName?: string;
  logger?: PgLogger;
  /** A pooled connection failed, idle or in use (counted on /metrics). */
  onLost?: () => void;
}

export const POSTGRES_DEFAULTS = {
  max: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
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
  await migratePostgres(url, {
    connectTimeoutMs: options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs,
    applicationName: applicationName('migrate', options.instanceLabel),
  });
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
    application_name: options.applicationName ?? applicationName('pool', options.instanceLabel),
    // Probes idle connections, so one whose peer vanished is found dead by TCP, not by a query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types,
  });
  // An idle client whose server went away emits 'error' on the pool; unheard, it ends the process.
  // The pool has already dropped that client; the next query opens a new one.
  pool.on('error', (err) => {
    options.onLost?.();
    options.logger?.warn({ err }, 'PostgreSQL: an idle pooled connection failed');
  });
  // A client checked out (a transaction's, a snapshot read's) has no listener of the pool's: a
  // connection that dies under it (terminated by the server, a socket error on a write) emits
  // 'error' on the client, which unheard ends the process. Heard here, for the client's whole
  // life: its statements fail (a 503), and the pool drops it when it comes back (no longer queryable).
  const checkedOut = new WeakSet<pg.Client>();
  pool.on('acquire', (client) => void checkedOut.add(client));
  pool.on('release', (_err, client) => void checkedOut.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (!checkedOut.has(client)) return;
      options.onLost?.();
      options.logger?.warn({ err }, 'PostgreSQL: a connection in use failed');
    });
  });
  // A query that hit the client-side timeout is still on its connection, unanswered, and the next
  // query would queue behind it. pool.query releases such a client with the error, which drops
  // it; a client checked out by hand (drizzle's transactions) comes back with a plain release(),
  // which would keep it. Ending it here, before the pool decides, makes the pool drop it too.
  pool.on('release', (err, client) => {
    if (!err && (client as unknown as { readyForQuery?: boolean }).readyForQuery === false) void client.end();
  });
  return pool;
}

/** How long closing a connection waits for the server to see the goodbye (a silent network never does). */
const GOODBYE_MS = 1_000;

/**
 * Ends a client outside the pool: a polite goodbye, but bounded. `end()` resolves once the socket
 * closes, which on a network gone silent never happens; past `GOODBYE_MS` the socket is destroyed.
 */
export async function endBounded(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().then(
    () => true,
    () => true,
  );
  const polite = await Promise.race([
    ended,
    new Promise<false>((r) => (timer = setTimeout(() => r(false), GOODBYE_MS))),
  ]);
  clearTimeout(timer);
  if (!polite) client.connection.stream.destroy();
}
