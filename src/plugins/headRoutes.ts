// HEAD answers what GET would (RFC 9110 9.3.2). Fastify makes a HEAD route of every GET route, whose
// last onSend handler (Fastify's own) drops the body and sets Content-Length to its length, and to
// 0 when there is none. A 304 has none: the 304 a HEAD holding a current ETag gets then said
// `content-length: 0`, where RFC 9110 8.6 allows a 304 no Content-Length but the 200's (GET's 304
// carries none). Here that handler is left out of a 304, which then leaves with the headers its
// route gave it (src/http/representation.ts), as GET's does.
import type { FastifyInstance, onSendHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/** The name of Fastify's HEAD handler (fastify/lib/head-route.js). */
const FASTIFY_HEAD = 'headRouteOnSendHandler';

export const headRoutesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.method !== 'HEAD') return;
      const onSend = [route.onSend ?? []].flat();
      const at = onSend.findIndex((handler) => handler.name === FASTIFY_HEAD);
      if (at < 0) return; // a HEAD route of its own
      const head = onSend[at]!;
      const notFor304: onSendHookHandler = function (request, reply, payload, done) {
        if (reply.statusCode === 304) done(null, null);
        else void head.call(this, request, reply, payload, done);
      };
      onSend[at] = notFor304;
      route.onSend = onSend;
    });
  },
  { name: 'head-routes' },
);
