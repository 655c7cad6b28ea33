import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { FASTEST_COMPRESSION } from '../plugins/compression.js';

const Status = z.object({ status: z.string().describe('`ok` or `unavailable`.') }).describe('Service status.');

export const operationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      config: { access: 'open' },
      schema: {
        tags: ['operations'],
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { access: 'open' },
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers and its migrations are applied',
        response: { 200: Status, 503: Status },
      },
    },
    async (_request, reply) => {
      const ready = await app.services.ready();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable' });
    },
  );

  app.get(
    '/metrics',
    {
      // Made anew on each request (a few ms of CPU): counted against the per-address limit, open as it is.
      config: { access: 'open', counted: true },
      compress: FASTEST_COMPRESSION,
      schema: {
        tags: ['operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Request durations by route, requests refused by why, runs ingested, score computation time, the memory budget, storage (SQLite WAL, PostgreSQL pool and connections), validators silent, snapshots, worker stops, process metrics; docs/OPERATING.md lists them and the alerts worth setting.',
        response: { 200: z.string().describe('Prometheus text exposition format.') },
      },
    },
    async (_request, reply) => {
      const metrics = app.metrics.exposition();
      return reply.type(metrics.contentType).send(await metrics.metrics());
    },
  );
};
