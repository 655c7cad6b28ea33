// Unknown query parameters are a 400 naming them, on every /v1 route: a misspelled `?stage=` must
// not silently give the default answer. Routes with a querystring declare it as a strict object
// (src/schemas/common.ts StagesQuery); this gives the others an empty strict one.
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';

const NoQuery = z.strictObject({});

export const strictQueryPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!route.url.startsWith('/v1/') || route.method === 'HEAD') return;
      route.schema ??= {};
      route.schema.querystring ??= NoQuery;
    });
  },
  { name: 'strict-query' },
);
