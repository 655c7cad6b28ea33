// What a cache between a client and the server may do with a read of the API (RFC 9111). Every
// read changes with the writes (API.md: it reflects every write acknowledged before it), and many
// answer the admin more than anyone else (a competition's allow-list, the runs' votes, answer keys);
// a mistyped token gets a 401 where no token gets the answer. A 200 or a 404 that says nothing may
// be kept and reused for as long as a cache guesses (RFC 9111 4.2.2), and one that does not vary on
// Authorization may be reused for a request with other credentials (4.1). So each read that does
// not say otherwise says `Cache-Control: no-cache` (ask the server before reusing it) and varies on
// Authorization, as the score reads do themselves (src/http/representation.ts), whatever its status.
import type { FastifyInstance, onSendHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../routes/index.js';

const AUTHORIZATION = /(?:^|,)\s*(?:authorization|\*)\s*(?:,|$)/i;

const readHeaders: onSendHookHandler = (_request, reply, payload, done) => {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-cache');
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'authorization');
  else if (!AUTHORIZATION.test(String(vary))) reply.header('vary', `${String(vary)}, authorization`);
  done(null, payload);
};

export const readCachingPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const reads = [route.method].flat().some((m) => m === 'GET' || m === 'HEAD');
      if (!reads || !route.url.startsWith(`${API_PREFIX}/`)) return;
      route.onSend = [...[route.onSend ?? []].flat(), readHeaders];
    });
  },
  { name: 'read-caching' },
);
