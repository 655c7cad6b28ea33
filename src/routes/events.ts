import { z } from 'zod';
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import type { StreamSlots } from './streamSlots.js';
import { clientGone } from '../plugins/connections.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The caps on open event streams (./streamSlots.ts). */
    streamSlots: StreamSlots;
  }
}

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { competitions, changes } = app.services;
  const open = new Set<ServerResponse>();
  // Streams never end by themselves: close them so a graceful shutdown does not wait on them.
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });

  app.get(
    '/competitions/:competitionId/events',
    {
      config: { access: 'public' },
      schema: {
        tags: ['scores'],
        operationId: 'getEvents',
        summary: 'Server-Sent Events: a notice after each write to the competition',
        description:
          'A `text/event-stream`. On connect and after each acknowledged write (coalesced, at most one per 250 ms): ' +
          '`event: scores` with `data: {"version": N}`; re-read what you show. A comment line every 15 s keeps the ' +
          'connection open. Versions count writes since the server started. Streams are capped server-wide and per ' +
          'client address (SCORING_MAX_EVENT_STREAMS, SCORING_MAX_EVENT_STREAMS_PER_ADDRESS): a 429 with Retry-After past either.',
        params: CompetitionParams,
        response: { 200: z.string().describe('An event stream.'), ...problems(401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { competitionId } = request.params;
      // A client gone on the way here (its 'close' has passed, and would never give a slot back).
      if (clientGone(request)) return void reply.hijack();
      const slot = app.streamSlots.take(request.ip);
      if (slot instanceof Error) throw slot;
      // Given back when the response closes, however it ends: a 404, the client leaving, the stream's end.
      reply.raw.once('close', slot);
      await competitions.require(competitionId);
      const res = reply.raw;
      reply.hijack();
      // A client gone while the competition was read: its 'close' has passed, and would never undo
      // what follows (a subscription, a heartbeat).
      if (clientGone(request)) return void res.destroy();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // HEAD gets the headers a GET would and no stream (it would never be flushed, nor end).
      if (request.method === 'HEAD') return void res.end();
      const send = (version: number) => res.write(`event: scores\ndata: ${JSON.stringify({ version })}\n\n`);
      res.write('retry: 3000\n\n');
      send(changes.version(competitionId));
      const unsubscribe = changes.subscribe(competitionId, send);
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      open.add(res);
      res.on('close', () => {
        open.delete(res);
        clearInterval(heartbeat);
        unsubscribe();
      });
    },
  );
};
