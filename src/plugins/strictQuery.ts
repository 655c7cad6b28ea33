// Unknown query parameters are a 400 naming them, on every /v1 route: a misspelled `?stage=` must
// not silently give the default answer. Routes with a querystring declare it as a strict object
// (src/schemas/common.ts StagesQuery); this gives the others an empty strict one. No parameter of
// this API is a list by repetition (lists are comma-separated), so one given more than once is a
// 400 saying so, not a type error about the list it was parsed into.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { badRequest } from '../errors.js';
import { printable } from '../unicode.js';

const NoQuery = z.strictObject({});

/** The first parameter given more than once, as a 400 naming it; before the schema reads it. */
function repeated(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const query = request.query as Record<string, unknown>;
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (!Array.isArray(value)) continue;
    const path = `querystring/${printable(key)}`;
    const message = `given ${value.length} times; send it once`;
    return done(badRequest(`${path} is ${message}`, [{ path, message }]));
  }
  done();
}

export const strictQueryPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!route.url.startsWith('/v1/') || route.method === 'HEAD') return;
      route.schema ??= {};
      route.schema.querystring ??= NoQuery;
      route.preValidation = [repeated, ...[route.preValidation ?? []].flat()];
    });
  },
  { name: 'strict-query' },
);
