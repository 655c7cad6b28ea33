// Connections at the door: how many may be open at once (Node's `maxConnections`: the next one is
// closed as it is accepted, before a byte is read), and Node's own clocks for a request's headers
// and for the whole request, the layer under the body timeout (./bodyGuard.ts), which answers first.
import type { FastifyInstance } from 'fastify';
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
