// HEAD answers what GET would (RFC 9110 9.3.2). Fastify makes a HEAD route of every GET route, with
// an onSend handler of its own (fastify/lib/head-route.js) that drops the body and sets
// Content-Length to its length, and to 0 when there is none. Two things are set right here:
// - It ran before the onSend handlers that plugins add to each route as it is made
//   (@fastify/compress's), which then saw no body: a HEAD was answered uncompressed, without the
//   Vary and Content-Encoding its GET carries, and with the Content-Length of the plain body where
//   GET sends the compressed one (8.6: a HEAD's Content-Length is the length GET would send). It
//   now runs last, so it is registered after those plugins (src/app.ts).
// - A 304 has no body: the 304 a HEAD holding a current ETag gets said `content-length: 0`, where
//   8.6 allows a 304 no Content-Length but the 200's (GET's 304 carries none). That handler is left
//   out of a 304, which leaves with the headers its route gave it (src/http/representation.ts).
// - A stream body (an export, a snapshot's input document, a backup) is destroyed unread, first of
//   the route's onSend handlers, and an empty stream goes on in its place (so that compression
//   still sets the headers GET gets). Fastify's handler resumed it to its end and dropped the
//   bytes: each anonymous HEAD of a runs export read and encoded every run of the competition after
//   its answer had gone, paced by no client (10 HEADs of a 41,000-run Parquet export took 4.6 s of
//   a server's CPU, the same 10 GETs cancelled after their headers 0.6 s).
import { Readable } from 'node:stream';
import type { FastifyInstance, onSendHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/** The name of Fastify's HEAD handler (fastify/lib/head-route.js). */
const FASTIFY_HEAD = 'headRouteOnSendHandler';

/** A Node stream body, as Fastify's handler tells one (it resumes what has `resume`). */
const isStream = (payload: unknown): payload is Readable =>
  typeof (payload as Readable | null)?.resume === 'function' && typeof (payload as Readable).destroy === 'function';

export const headRoutesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.method !== 'HEAD') return;
      const onSend = [route.onSend ?? []].flat();
      const at = onSend.findIndex((handler) => handler.name === FASTIFY_HEAD);
      if (at < 0) return; // a HEAD route of its own
      const [head] = onSend.splice(at, 1);
      const first: onSendHookHandler = function (_request, _reply, payload, done) {
        if (!isStream(payload)) return done(null, payload);
        payload.destroy();
        done(null, Readable.from([]));
      };
      const last: onSendHookHandler = function (request, reply, payload, done) {
        if (reply.statusCode === 304) done(null, null);
        else if (isStream(payload)) {
          payload.destroy();
          done(null, null);
        } else void head!.call(this, request, reply, payload, done);
      };
      route.onSend = [first, ...onSend, last];
    });
  },
  { name: 'head-routes' },
);
