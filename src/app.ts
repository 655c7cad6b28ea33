// Builds the Fastify app. It never listens: src/server.ts does, and tests call `inject`.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Db } from './db/client.js';
import { createRepos, type Repos } from './db/repos.js';
import { authenticator } from './auth.js';
import { errorHandler, notFoundHandler } from './errorHandler.js';
import { Problem } from './errors.js';
import { createMetrics, type Metrics } from './metrics.js';
import { scoresService, type ScoresService } from './services/scores.js';
import { LIMITS } from './schemas/common.js';
import { routes } from './routes/index.js';
import { transformObject } from './openapi.js';

export interface AppOptions {
  db: Db;
  adminToken: string;
  readsRequireToken?: boolean;
  logger?: FastifyServerOptions['logger'];
}

declare module 'fastify' {
  interface FastifyInstance {
    repos: Repos;
    scores: ScoresService;
    metrics: Metrics;
  }
}

export const API_VERSION = '1.0.0';

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: LIMITS.bodyBytes,
    return503OnClosing: false,
    // Path identifiers may be 128 characters (API.md) and the router's default cap is 100: longer
    // ones must reach the schemas, whose 400 names the parameter.
    routerOptions: { maxParamLength: 1024 },
    // Router errors (a broken percent-escape, a parameter over that cap) leave as problem+json too.
    frameworkErrors: errorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const repos = createRepos(options.db);
  const metrics = createMetrics();
  app.decorate('repos', repos);
  app.decorate('metrics', metrics);
  app.decorate('scores', scoresService(repos, (s) => metrics.scoreComputation.observe(s)));
  app.decorateRequest('principal', null);

  // The import route takes files; everything else is JSON only: a file or text sent to a JSON
  // route is a 415, not a body of the wrong type.
  app.removeContentTypeParser('text/plain');
  for (const type of ['application/vnd.apache.parquet', 'application/x-ndjson']) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
      if (req.routeOptions.url?.endsWith('/tasks/import')) done(null, body);
      else done(new Problem(415, 'unsupported-media-type', 'Unsupported media type', `${type} is taken only by the task import; send application/json`), undefined);
    });
  }

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Graceful shutdown: once close() has begun, a reply ends its keep-alive connection. Otherwise a
  // request in flight at SIGTERM leaves an idle keep-alive socket that holds the exit for the
  // keep-alive timeout (72 s), since server.close() reaps idle sockets only when it is called.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Fastify's own 503 while closing is not problem+json (return503OnClosing is off); this is.
  app.addHook('onRequest', async () => {
    if (closing) throw new Problem(503, 'unavailable', 'Service unavailable', 'the server is shutting down; retry shortly');
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', authenticator(repos, options.adminToken, options.readsRequireToken ?? false));
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requestDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'swe-scoring',
        version: API_VERSION,
        description:
          'Scoring server for competitions of software-engineering agents: validators post run results, ' +
          'dashboards read per-task scores, leaderboards and incentive weights. Rules: SPEC.md.',
        license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
      },
      servers: [{ url: 'http://127.0.0.1:3000', description: 'Local server (default PORT and HOST)' }],
      tags: [
        { name: 'competitions', description: 'Competition settings (admin writes).' },
        { name: 'tasks', description: 'Tasks and rubrics (admin writes).' },
        { name: 'validators', description: 'Validator keys (admin).' },
        { name: 'miners', description: 'Miners and their breakdowns.' },
        { name: 'runs', description: 'Run results (validators).' },
        { name: 'scores', description: 'Leaderboard and weights (public reads).' },
        { name: 'operations', description: 'Health, readiness, metrics.' },
      ],
      components: {
        securitySchemes: {
          adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (SCORING_ADMIN_TOKEN).' },
          validatorKey: { type: 'http', scheme: 'bearer', description: 'A validator key from POST /v1/validators.' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(routes);
  await app.register(import('./plugins/dashboard.js'));
  await app.ready();
  return app;
}
