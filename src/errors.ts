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
  | 'conflict'
  | 'too_large'
  | 'unprocessable'
  | 'unsupported'
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

export const badRequest = (detail: string, errors?: ErrorField[]) => new DomainError('invalid', detail, errors);
export const unauthorized = (detail: string, reason?: string, errors?: ErrorField[]) =>
  new DomainError('unauthorized', detail, errors, reason);
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
export const notFound = (detail: string, errors?: ErrorField[]) => new DomainError('not_found', detail, errors);
export const conflict = (detail: string, errors?: ErrorField[]) => new DomainError('conflict', detail, errors);
/** Past a stated limit (a document's miners, its answer's size): the detail names the limit and its setting. */
export const tooLarge = (detail: string, errors?: ErrorField[]) => new DomainError('too_large', detail, errors);
export const unprocessable = (detail: string, errors?: ErrorField[]) =>
  new DomainError('unprocessable', detail, errors);
export const unsupported = (detail: string, errors?: ErrorField[]) => new DomainError('unsupported', detail, errors);
export const unavailable = (detail: string) => new DomainError('unavailable', detail);

/**
 * A service the server depends on (the database) cannot answer now: a 503 the client may retry.
 * A storage engine throws it in place of its own outage errors, kept as `cause` for the log, so
 * that the HTTP layer knows no engine's error codes.
 */
export class ServiceUnavailable extends DomainError {
  constructor(detail: string, cause?: unknown) {
    super('unavailable', detail);
    this.cause = cause;
  }
}

/** The database did not answer: nothing is wrong with the request. */
export const databaseUnavailable = (cause?: unknown) =>
  new ServiceUnavailable('the database did not answer in time; retry the request shortly', cause);

/** Lists at most a few items in a detail message, so a 5,000-run batch gives a readable line. */
export function listSome(items: readonly string[], max = 10): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
