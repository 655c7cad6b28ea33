// Domain errors: what storage and services throw. They know nothing of HTTP; the one error
// handler (src/plugins/errors.ts) maps each kind to its problem+json status.

export interface ErrorField {
  /** Where the problem is, e.g. `body/runs/3/tokens/input`. */
  path: string;
  message: string;
}

/** Every problem+json `type` of this server starts so; the slug names the problem. */
export const PROBLEM_TYPE_PREFIX = 'urn:swe-scoring:problem:';

export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'timeout'
  | 'conflict'
  | 'too_large'
  | 'unprocessable'
  | 'unsupported'
  | 'too_many'
  | 'upgrade_required'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    readonly errors?: ErrorField[],
    /** A more precise reason than the kind, e.g. `signature-stale`; becomes the problem type. */
    readonly reason?: string,
  ) {
    super(detail);
  }
}

/**
 * Why a request was refused, for the operator: the `reason` label of `scoring_requests_refused_total`
 * and the `refusal` field of its log lines (docs/OPERATING.md, "Watching it"). Stable names, a few
 * dozen at most; the problem type a client sees may be coarser (a full temporary folder and a full
 * database disk are both `storage-full` to the client, not to whoever must free the space).
 */
export type Refusal =
  | 'database-unavailable'
  | 'database-locked'
  | 'database-io-error'
  | 'storage-full'
  | 'storage-read-only'
  | 'storage-moved'
  | 'temporary-folder-full'
  | 'temporary-folder-read-only'
  | 'write-queue-timeout'
  | 'import-worker-stopped'
  | 'transaction-worker-stopped'
  | 'scoring-busy'
  | 'shutting-down'
  | 'busy'
  | 'body-timeout'
  | 'rate-limit'
  | 'signature-failures'
  | 'too-many-streams'
  | 'validator-outdated';

/** A limit at the door was reached (src/doorLimits.ts): the client may try again after `retryAfter` seconds. */
export class LimitError extends DomainError {
  constructor(
    kind: 'timeout' | 'too_many' | 'unavailable',
    detail: string,
    readonly retryAfter: number,
    reason: string | undefined,
    /** Which limit, for the operator. */
    readonly refusal: Refusal,
  ) {
    super(kind, detail, undefined, reason);
  }
}

export const badRequest = (detail: string, errors?: ErrorField[]) => new DomainError('invalid', detail, errors);
export const unauthorized = (detail: string, reason?: string, errors?: ErrorField[]) =>
  new DomainError('unauthorized', detail, errors, reason);
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
export const notFound = (detail: string, errors?: ErrorField[]) => new DomainError('not_found', detail, errors);
/** A path some route serves, asked with a method none of them takes: `allow` lists the ones they do. */
export class MethodNotAllowed extends DomainError {
  constructor(
    detail: string,
    readonly allow: readonly string[],
  ) {
    super('method_not_allowed', detail);
  }
}
export const conflict = (detail: string, errors?: ErrorField[]) => new DomainError('conflict', detail, errors);
/** Past a stated limit (a document's miners, its answer's size): the detail names the limit and its setting. */
export const tooLarge = (detail: string, errors?: ErrorField[]) => new DomainError('too_large', detail, errors);
export const unprocessable = (detail: string, errors?: ErrorField[]) =>
  new DomainError('unprocessable', detail, errors);
export const unsupported = (detail: string, errors?: ErrorField[]) => new DomainError('unsupported', detail, errors);
/** A write (tasks, an import) into a competition that is not there: a 404 that says how to make it. */
export const noCompetitionToWrite = (id: string) =>
  notFound(`competition ${id} does not exist; create it first (PUT /v1/competitions/${id})`);
/** A validator whose announced version is older than the competition asks for (SPEC 13). */
export const upgradeRequired = (detail: string, errors?: ErrorField[]) =>
  new DomainError('upgrade_required', detail, errors, 'validator-outdated');

/**
 * A service the server depends on (the database) cannot answer now: a 503 the client may retry.
 * A storage engine throws it in place of its own outage errors, kept as `cause` for the log, so
 * that the HTTP layer knows no engine's error codes.
 */
export class ServiceUnavailable extends DomainError {
  constructor(
    detail: string,
    cause?: unknown,
    /** A more precise reason than `unavailable` (the problem type), e.g. `storage-full`. */
    reason?: string,
    /** Seconds for Retry-After; 5 unless told. */
    readonly retryAfter?: number,
    /** Why, for the operator (the log's message and the metric's label). */
    readonly refusal: Refusal = 'database-unavailable',
  ) {
    super('unavailable', detail, undefined, reason);
    this.cause = cause;
  }
}

/** A 503 `unavailable` (Retry-After 5) of the server's own making: a worker stopped, a queue full, a shutdown. */
export const unavailable = (detail: string, refusal: Refusal) =>
  new ServiceUnavailable(detail, undefined, undefined, undefined, refusal);

/** The database did not answer: nothing is wrong with the request. */
export const databaseUnavailable = (cause?: unknown, refusal: Refusal = 'database-unavailable') =>
  new ServiceUnavailable(
    'the database did not answer in time; retry the request shortly',
    cause,
    undefined,
    undefined,
    refusal,
  );

/**
 * The database's storage cannot take the write now: its disk is full (`storage-full`) or its file
 * cannot be written (`storage-read-only`). A 503 that says so, retried after a minute: it clears
 * once the operator has made room or made the file writable, and a retried write is then stored.
 */
export const storageFull = (cause?: unknown) =>
  new ServiceUnavailable(
    "the database's disk is full: the request changed nothing; retry it once the server has room again (the operator frees disk space)",
    cause,
    'storage-full',
    60,
    'storage-full',
  );
export const storageReadOnly = (cause?: unknown) =>
  new ServiceUnavailable(
    "the database's file cannot be written now: the request changed nothing; retry it once the operator has made it writable",
    cause,
    'storage-read-only',
    60,
    'storage-read-only',
  );

/**
 * The server's temporary folder (TMPDIR: import uploads, the copies GET /v1/admin/backup sends)
 * has no room for the request's file, or cannot be written: the same 503s as the database's disk,
 * retried after a minute, once the operator has freed space there or fixed the folder.
 */
export const temporaryFolderFull = (cause?: unknown) =>
  new ServiceUnavailable(
    "the server's temporary folder is full: the request changed nothing; retry it once the operator has freed space there",
    cause,
    'storage-full',
    60,
    'temporary-folder-full',
  );
export const temporaryFolderReadOnly = (cause?: unknown) =>
  new ServiceUnavailable(
    "the server's temporary folder cannot be written: the request changed nothing; retry it once the operator has made it writable",
    cause,
    'storage-read-only',
    60,
    'temporary-folder-read-only',
  );

/**
 * The database's file was deleted, moved or replaced while the server runs (`storage-moved`): a write
 * would go into a file no later start opens. A 503 retried after a minute: it clears once the file
 * is back at its path; otherwise the operator saves the data (GET /v1/admin/backup still reads it)
 * and restarts.
 */
export const storageMoved = (path: string) =>
  new ServiceUnavailable(
    "the database's file was deleted, moved or replaced while the server runs: the request changed " +
      'nothing; retry it once the operator has put the file back (or saved it and restarted the server)',
    // The path for the log only, never for the client.
    new Error(`the database's file ${path} is not the one the server opened`),
    'storage-moved',
    60,
    'storage-moved',
  );

/** Lists at most a few items in a detail message, so a 5,000-run batch gives a readable line. */
export function listSome(items: readonly string[], max = 10): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
