// Graceful close: once close() has begun, new requests get a 503 problem and every reply ends its
// keep-alive connection. Otherwise a request in flight at SIGTERM leaves an idle keep-alive socket
// that holds the exit for the keep-alive timeout (72 s), since server.close() reaps idle sockets
// only when it is called.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { unavailable } from '../errors.js';

export const shutdownPlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    // Fastify's own 503 while closing is not problem+json (return503OnClosing is off); this is.
    // Callback hooks: they run on every request, and an async hook costs a promise each time.
    app.addHook('onRequest', (_request, _reply, done) => {
      done(closing ? unavailable('the server is shutting down; retry shortly', 'shutting-down') : undefined);
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'shutdown' },
);
