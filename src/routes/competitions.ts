import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import { CompetitionInputSchema, CompetitionListSchema, CompetitionSchema } from '../schemas/competitions.js';
import { competitionView } from '../services/views.js';
import { ADMIN, PUBLIC } from './security.js';

export const competitionRoutes: FastifyPluginAsyncZod = async (app) => {
  app.put('/competitions/:competitionId', {
    config: { access: 'admin' },
    schema: {
      tags: ['competitions'],
      operationId: 'putCompetition',
      summary: 'Create or update a competition',
      description: 'Fields left out keep their stored value, or their default on creation. Changing token weights recomputes every aggregate.',
      security: ADMIN,
      params: CompetitionParams,
      body: CompetitionInputSchema,
      response: { 200: CompetitionSchema, 201: CompetitionSchema, ...problems(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { competitionId } = request.params;
    const { created } = app.repos.competitions.upsert(competitionId, request.body);
    app.scores.invalidate(competitionId);
    return reply.code(created ? 201 : 200).send(competitionView(app, competitionId));
  });

  app.get('/competitions', {
    config: { access: 'public' },
    schema: {
      tags: ['competitions'],
      operationId: 'listCompetitions',
      summary: 'List competitions',
      security: PUBLIC,
      response: { 200: CompetitionListSchema, ...problems(401) },
    },
  }, async () => ({
    competitions: app.repos.competitions.list().map((c) => competitionView(app, c.id)),
  }));

  app.get('/competitions/:competitionId', {
    config: { access: 'public' },
    schema: {
      tags: ['competitions'],
      operationId: 'getCompetition',
      summary: 'Get a competition',
      security: PUBLIC,
      params: CompetitionParams,
      response: { 200: CompetitionSchema, ...problems(401, 404) },
    },
  }, async (request) => competitionView(app, request.params.competitionId));
};
