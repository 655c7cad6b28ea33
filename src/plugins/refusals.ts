// Refusals the operator watches (src/errors.ts `Refusal`): every 503, every limit at the door, every
// 426, counted by why on /metrics (`scoring_requests_refused_total{reason}`) and named in the request
// line's `refusal`; a 503 also gets a warning of its own with its cause, by a message that says what
// to look at (docs/OPERATING.md, "Watching it").
import type { FastifyRequest } from 'fastify';
import { DomainError, LimitError, ServiceUnavailable, type Refusal } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the request was refused (a 503, a limit at the door, a 426), for the operator; else null. */
    refusal: Refusal | null;
  }
}

/**
 * The log line of each 503, by why: the operator's next step differs (free the database's disk or
 * the temporary folder, end the process holding the lock, look at PostgreSQL). Stable messages.
 * A shutdown's 503s are expected and not logged beyond their request lines.
 */
const UNAVAILABLE_MESSAGES: Partial<Record<Refusal, string>> = {
  'database-unavailable': 'database unavailable',
  'database-locked': 'database locked by another process',
  'database-io-error': 'database file could not be read or written',
  'storage-full': 'database disk full',
  'storage-read-only': 'database file read-only',
  'storage-moved': 'database file moved',
  'temporary-folder-full': 'temporary folder full',
  'temporary-folder-read-only': 'temporary folder read-only',
  'write-queue-timeout': "competition's writes queued too long",
  'import-worker-stopped': 'import worker stopped',
  'transaction-worker-stopped': 'transaction worker stopped',
  'scoring-busy': 'score workers busy',
};

/** Why a refusal was made, when it is one the operator watches: 503s, limits at the door, 426s. */
function refusalOf(error: DomainError): Refusal | null {
  if (error instanceof ServiceUnavailable || error instanceof LimitError) return error.refusal;
  return error.kind === 'upgrade_required' ? 'validator-outdated' : null;
}

/** Counts and logs `error` by why, when it is a refusal the operator watches; marks the request with it. */
export function noteRefusal(error: DomainError, request: FastifyRequest): void {
  const refusal = refusalOf(error);
  if (refusal === null) return;
  request.refusal = refusal;
  request.server.metrics.requestsRefused.inc({ reason: refusal });
  const message = UNAVAILABLE_MESSAGES[refusal];
  if (message) request.log.warn({ err: error.cause ?? error, refusal }, message);
}
