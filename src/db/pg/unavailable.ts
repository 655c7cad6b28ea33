// Whether an error means the database cannot be reached now (a 503 the client may retry) rather
// than a fault in the request or the code. Apart from the pool (./client.ts) so that the error
// handler can ask without loading the PostgreSQL driver into a server that runs on SQLite.

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
