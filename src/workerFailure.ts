// An error crossing a worker thread's boundary: a domain error keeps its kind (a 400, a 409, a 413
// stays one), anything else becomes a plain error (a 500, its message to the log). A storage that
// cannot answer (a ServiceUnavailable: the disk full, the file moved) stays one, with its
// Retry-After and its cause's message for the log, as if it had failed on this thread.
import { DomainError, ServiceUnavailable, type ErrorField, type ErrorKind, type Refusal } from './errors.js';

export interface Failure {
  message: string;
  domain?: { kind: ErrorKind; detail: string; errors?: ErrorField[]; reason?: string };
  /** A ServiceUnavailable's: its Retry-After, its cause's message and why (for the operator). */
  unavailable?: { retryAfter?: number; cause?: string; refusal: Refusal };
}

/** In the worker: the error as a message can carry it. */
export function failure(e: unknown): Failure {
  if (e instanceof ServiceUnavailable)
    return {
      message: e.detail,
      domain: { kind: e.kind, detail: e.detail, reason: e.reason },
      unavailable: {
        retryAfter: e.retryAfter,
        cause: e.cause instanceof Error ? e.cause.message : undefined,
        refusal: e.refusal,
      },
    };
  if (e instanceof DomainError)
    return { message: e.detail, domain: { kind: e.kind, detail: e.detail, errors: e.errors, reason: e.reason } };
  return { message: e instanceof Error ? e.message : String(e) };
}

/** On the main thread: the error again; `worker` names the thread in a plain error's message. */
export function revive(f: Failure, worker: string): Error {
  if (!f.domain) return new Error(`${worker}: ${f.message}`);
  const { kind, detail, errors, reason } = f.domain;
  if (f.unavailable) {
    const cause = f.unavailable.cause === undefined ? undefined : new Error(`${worker}: ${f.unavailable.cause}`);
    return new ServiceUnavailable(detail, cause, reason, f.unavailable.retryAfter, f.unavailable.refusal);
  }
  return new DomainError(kind, detail, errors, reason);
}
