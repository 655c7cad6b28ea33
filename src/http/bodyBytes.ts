// A JSON request body's bytes, gathered as Fastify's own `parseAs: 'buffer'` gathers them (its
// content-type-parser.js `rawBody`: the same body limit, before a byte is read and as bytes arrive,
// the same errors, the same check of Content-Length), for the JSON parser (src/plugins/contentTypes.ts).
// What differs is where they go: a body read at once (no signature to check on them first) is copied
// into one buffer this process keeps and reuses, where Fastify's `Buffer.concat` made a new one of the
// body's size each time (0.2-0.6 ms of a 600 kB run batch's main thread, in fresh pages); a
// signed body, whose check holds its bytes across a worker's answer, gets a buffer of its own as before.
import type { FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';

/** The bytes a reused buffer holds at most: a larger body gets a buffer of its own. */
const REUSED_MAX = 2 * 1024 * 1024;
let reused = Buffer.allocUnsafeSlow(0);

/** What `gather` hands on: the body's pieces and their length. */
export interface BodyChunks {
  chunks: Buffer[];
  length: number;
}

/** A stream as Fastify's preParsing hooks leave it (a decompressing one counts what it took). */
type Payload = NodeJS.ReadableStream & { receivedEncodedLength?: number };

/** Reads `payload` to its end, as Fastify's rawBody: `done` once, with the pieces or the refusal. */
export function gather(
  request: FastifyRequest,
  payload: Payload,
  done: (error: Error | null, body?: BodyChunks) => void,
): void {
  const limit = request.routeOptions.bodyLimit;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  let length = 0;
  const chunks: Buffer[] = [];
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    // The body's length, not only what came through a decoding stream, is bounded (a "zip bomb").
    if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    chunks.push(bytes);
  }
  function onEnd(err?: Error & { statusCode?: number }) {
    stop();
    if (err != null) {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      return done(err);
    }
    if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || length) !== contentLength)
      return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    done(null, { chunks, length });
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}

/** The body in a buffer of its own (it may be held past this turn of the event loop). */
export const ownBytes = (body: BodyChunks): Buffer => Buffer.concat(body.chunks, body.length);

/**
 * The body in the reused buffer (or its own, past REUSED_MAX): valid until the caller returns, so
 * only for reading it through before then, and never held (the next body overwrites it).
 */
export function passingBytes(body: BodyChunks): Buffer {
  if (body.length > REUSED_MAX) return ownBytes(body);
  if (reused.length < body.length)
    reused = Buffer.allocUnsafeSlow(Math.min(REUSED_MAX, Math.max(body.length, 2 * reused.length)));
  let at = 0;
  for (const chunk of body.chunks) at += chunk.copy(reused, at);
  return reused.subarray(0, body.length);
}
