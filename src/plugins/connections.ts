// Connections at the door: how many may be open at once (Node's `maxConnections`: the next one is
// closed as it is accepted, before a byte is read), and Node's own clocks for a request's headers
// and for the whole request, the layer under the body timeout (./bodyGuard.ts), which answers first;
// and a request whose client left before it was read is dropped unanswered.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Headers (at most 16 KiB) have this long to arrive; a client that trickles them is cut off. */
export const HEADERS_TIMEOUT_MS = 20_000;
/** Connections closed at the cap are logged at most this often, with their count. */
const DROP_LOG_MS = 10_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Connections closed at the cap since the start (scoring_connections_dropped_total). */
    droppedConnections: () => number;
  }
}

/**
 * Whether the request's client has left: its socket is closed, or reset (the peer's address can no
 * longer be read, though Node has not marked the socket destroyed yet).
 */
export const clientGone = (request: FastifyRequest): boolean =>
  request.raw.socket.destroyed || request.raw.socket.remoteAddress === undefined;

export interface ConnectionOptions {
  maxConnections: number;
  bodyTimeoutMs: number;
}

export const connectionsPlugin = fp(
  async (app: FastifyInstance, { maxConnections, bodyTimeoutMs }: ConnectionOptions) => {
    const { server } = app;
    server.maxConnections = maxConnections;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    // Node checks these every 30 s (connectionsCheckingInterval): a backstop, not the answer.
    server.requestTimeout = HEADERS_TIMEOUT_MS + bodyTimeoutMs;
    // A request whose client is gone before its first hook (sent, then the connection reset) has no
    // one to answer. It is dropped here, before it is counted, authenticated or handled: its address
    // went with its socket, so nothing after could key its count, and no work is owed to it.
    app.addHook('onRequest', (request, reply, done) => {
      if (clientGone(request)) reply.hijack();
      done();
    });
    let dropped = 0;
    let logged = 0;
    let droppedTotal = 0;
    app.decorate('droppedConnections', () => droppedTotal);
    server.on('drop', () => {
      dropped++;
      droppedTotal++;
      const now = Date.now();
      if (now - logged < DROP_LOG_MS) return;
      logged = now;
      app.log.warn(
        { maxConnections, dropped },
        'connections refused: the server holds SCORING_MAX_CONNECTIONS open connections',
      );
      dropped = 0;
    });
  },
  { name: 'connections' },
);
