// Bodies handed to the handler as they arrive rather than gathered into one buffer: file uploads
// (the one-request task import, import-session chunks), which the handler writes to disk piece by
// piece. The server then holds a socket read's worth of the upload, not its size twice over (the
// pieces, then their concatenation), and the event loop never copies or writes it in one go.
import { buffer } from 'node:stream/consumers';
import { errorCodes, type FastifyRequest } from 'fastify';
import type { UploadPieces } from '../services/importTasks.js';

const tooLarge = () => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();

/** The stream's pieces, ending in a 413 once more than `limit` bytes came (a chunked upload has no length to check first). */
async function* limited(stream: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const piece of stream) {
    size += piece.length;
    if (size > limit) throw tooLarge();
    yield piece;
  }
}

/**
 * A content-type parser whose body is the request's pieces (an async iterable), up to `limit`
 * bytes. A signed request's body is read whole instead, as its signature covers the exact bytes,
 * and checked before the handler sees it (src/plugins/auth.ts).
 */
export function streamedBody(limit: number) {
  return (
    request: FastifyRequest,
    payload: AsyncIterable<Uint8Array>,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    // A Content-Encoding was refused before the body was read (src/plugins/contentTypes.ts refusedOnHeaders).
    if (Number(request.headers['content-length']) > limit) return done(tooLarge(), undefined);
    const body = limited(payload, limit);
    if (!request.checkSignedBody) {
      request.bodyStreamed(); // handed on as it comes, not held: out of the in-flight budget (src/plugins/bodyGuard.ts)
      return done(null, body);
    }
    buffer(body)
      .then((bytes) => request.checkSignedBody!(bytes).then(() => [bytes]))
      .then(
        (pieces) => done(null, pieces),
        (err: Error) => done(err, undefined),
      );
  };
}

/** A body `streamedBody` handed on: its pieces, or none when the request's type had another parser. */
export function uploadPieces(request: FastifyRequest): UploadPieces {
  const body = request.body;
  if (body && typeof body === 'object' && Symbol.asyncIterator in body) return body as AsyncIterable<Uint8Array>;
  if (Array.isArray(body) && body.every((b) => b instanceof Uint8Array)) return body;
  return [];
}
