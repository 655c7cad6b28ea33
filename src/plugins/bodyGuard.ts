// Request bodies at the door: each must arrive within the body timeout, and the bytes of bodies
// still arriving are held against one server-wide budget. A client that sends headers and a few
// MiB and then stalls, or many that do it at once, would otherwise hold that memory until they
// chose to stop: Fastify gathers a JSON body's pieces until its last byte.
//
// Past either limit the body is refused (408, or 503 when the budget is spent, both with
// Retry-After), its bytes are let go at once, and its connection closes after the answer: the rest
// of the body is read and dropped for a bounded while (./lingeringClose.ts), never kept. Node's own
// `requestTimeout` and `headersTimeout` are set as the layer below (src/plugins/connections.ts).
//
// Streamed uploads (task files, import chunks: src/routes/streamBody.ts) go to disk as they arrive:
// they say so (`request.bodyStreamed()`) and stop counting against the budget, but not the clock.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { LimitError } from '../errors.js';
import { ProblemSchema } from '../schemas/common.js';
import { refusedOnHeaders } from './contentTypes.js';
import { closeAfterAnswer } from './lingeringClose.js';
import { routeMiss } from './routeMiss.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Bytes held now for bodies still arriving, server-wide (scoring_inflight_body_bytes). */
    inflightBodyBytes: () => number;
  }
  interface FastifyRequest {
    /** Called by a parser that hands the body on as it arrives rather than holding it: its bytes stop counting. */
    bodyStreamed: () => void;
  }
}

export interface BodyGuardOptions {
  timeoutMs: number;
  maxInflightBytes: number;
}

/** Whether a request carries a body (chunked, or a length above 0): what the door counts, and a signature covers. */
export const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/** How long a refused client is asked to wait: the time a body may take, at most a minute. */
const retryAfter = (timeoutMs: number) => Math.min(60, Math.max(1, Math.ceil(timeoutMs / 1000)));

function noop(): void {}

export const bodyGuardPlugin = fp(
  async (app: FastifyInstance, { timeoutMs, maxInflightBytes }: BodyGuardOptions) => {
    /** Bytes held for bodies still arriving, server-wide. */
    const inflight = { bytes: 0 };
    app.decorate('inflightBodyBytes', () => inflight.bytes);
    app.decorateRequest('bodyStreamed', noop);
    // Documented on every route that takes a body: its 408 and 503.
    app.addHook('onRoute', (route: RouteOptions) => {
      const responses = route.schema?.response as Record<number, unknown> | undefined;
      if (!responses || (!route.schema?.body && !route.config?.fileBody)) return;
      responses[408] ??= ProblemSchema;
      responses[503] ??= ProblemSchema;
    });

    // A client that sends `Expect: 100-continue` waits for the 100 before it sends its body (RFC 9110
    // 10.1.1). Node sends the 100 at once unless the server listens for 'checkContinue', inviting the
    // body of a request about to be refused for its credentials. Here the request goes on as any
    // other, and the 100 is sent when its body is about to be read (below): once the route, the
    // credentials and the signature's headers have passed. A request refused before gets its final
    // answer instead, and its client never sends the body.
    const awaitingContinue = new WeakSet<IncomingMessage>();
    app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      awaitingContinue.add(req);
      app.server.emit('request', req, res);
    });

    app.addHook('preParsing', (request, reply, payload, done) => {
      if (!hasBody(request)) return done(null, payload);
      // A body sent to no route: its 404 (or 405) comes before a byte of it is read, as a body without its
      // credentials gets its 401 (src/plugins/auth.ts), not once up to the body limit was gathered.
      if (request.is404) return done(routeMiss(request));
      // As is a body of a type, coding or charset the route does not take.
      const refused = refusedOnHeaders(request);
      if (refused) return done(refused);
      if (awaitingContinue.delete(request.raw)) reply.raw.writeContinue();
      let held = 0;
      let counting = true;
      let settled = false;
      const release = () => {
        inflight.bytes -= held;
        held = 0;
        counting = false;
      };
      const settle = () => {
        if (settled) return;
        settled = true;
        release();
        clearTimeout(timer);
      };
      const refuse = (error: LimitError) => {
        if (settled) return;
        settle();
        payload.unpipe(guard);
        closeAfterAnswer(request, reply);
        guard.destroy(error);
      };
      const guard = new Transform({
        transform(chunk: Buffer, _encoding, callback: TransformCallback) {
          if (counting) {
            held += chunk.length;
            inflight.bytes += chunk.length;
            if (inflight.bytes > maxInflightBytes) {
              refuse(
                new LimitError(
                  'unavailable',
                  `the server holds ${maxInflightBytes} bytes of request bodies still arriving at most ` +
                    '(SCORING_MAX_INFLIGHT_BODY_BYTES), and that is spent; send the body again shortly',
                  retryAfter(timeoutMs),
                  'busy',
                  'busy',
                ),
              );
              return callback();
            }
          }
          callback(null, chunk);
        },
        flush(callback: TransformCallback) {
          settle();
          callback();
        },
      });
      const timer = setTimeout(
        () =>
          refuse(
            new LimitError(
              'timeout',
              `the request body did not arrive within ${timeoutMs} ms of its headers (SCORING_BODY_TIMEOUT_MS); ` +
                'send it again, whole and without pauses',
              retryAfter(timeoutMs),
              undefined,
              'body-timeout',
            ),
          ),
        timeoutMs,
      );
      request.bodyStreamed = release;
      // However the request ends (answered early, the client gone), its bytes and its timer go.
      reply.raw.once('close', settle);
      payload.once('error', (err) => guard.destroy(err));
      payload.pipe(guard);
      done(null, guard);
    });
    // A body answered before it was read (over the body limit, refused on its headers: no or a
    // wrong token, a route the token may not use, no such route, a GET with a body): kept alive,
    // its connection would read and drop whatever the client still sent, for as long as it sent
    // (until Node's request timeout), unauthenticated; closed at once, it would be reset under a
    // client still sending. It closes lingering after the answer (./lingeringClose.ts), also when
    // the answer already says `Connection: close` (Fastify's 413, a shutdown). (An injected request
    // has no connection, and no `complete`.)
    app.addHook('onSend', (request, reply, payload, done) => {
      if (hasBody(request) && request.raw.complete === false) closeAfterAnswer(request, reply);
      done(null, payload);
    });
  },
  { name: 'body-guard' },
);
