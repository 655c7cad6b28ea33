// SQLite's storage failures as domain errors (src/errors.ts), so that nothing above src/db knows
// an engine's error codes: a database busy past busy_timeout or failing to read or write its file
// is a ServiceUnavailable (503, retry shortly), a full disk `storageFull` and a file that cannot
// be written `storageReadOnly` (503, retry after a minute). Any other error (a constraint, a bug)
// stays as it is. better-sqlite3 names the result code in `code`, extended codes included
// (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED).
import { databaseUnavailable, DomainError, ServiceUnavailable, storageFull, storageReadOnly } from '../../errors.js';

/** Result codes (and their extended codes) of a file that cannot be read or written now. */
const IO = ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL'];

const is = (code: string, base: string) => code === base || code.startsWith(`${base}_`);

export function mapSqliteError(err: unknown): unknown {
  if (err instanceof DomainError || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return err;
  if (is(code, 'SQLITE_FULL')) return storageFull(err);
  if (is(code, 'SQLITE_READONLY')) return storageReadOnly(err);
  // Another connection (an import's worker, the command line) held the write lock past busy_timeout.
  if (is(code, 'SQLITE_BUSY') || is(code, 'SQLITE_LOCKED')) return databaseUnavailable(err, 'database-locked');
  if (IO.some((base) => is(code, base)))
    return new ServiceUnavailable(
      'the database could not read or write its file: the request changed nothing; retry it shortly',
      err,
      undefined,
      undefined,
      'database-io-error',
    );
  return err;
}
