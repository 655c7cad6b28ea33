import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, StagesQuery, problems } from '../schemas/common.js';
import { LeaderboardSchema, WeightsSchema } from '../schemas/scores.js';
import { leaderboardBody, weightsBody } from '../views/scores.js';
import { sendCached } from './cachedJson.js';
import { PUBLIC } from './security.js';

export const scoreRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/competitions/:competitionId/leaderboard', {
    config: { access: 'public' },
    schema: {
      tags: ['scores'],
      operationId: 'getLeaderboard',
      summary: 'Get the leaderboard',
      description: 'Reflects every write acknowledged before the request.',
      security: PUBLIC,
      params: CompetitionParams,
      querystring: StagesQuery,
      response: { 200: LeaderboardSchema, ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const { competitionId } = request.params;
    const scored = app.scores.get(competitionId, request.query.stages);
    return sendCached(reply, scored, 'leaderboard', () => leaderboardBody(competitionId, scored.scores));
  });

  app.get('/competitions/:competitionId/weights', {
    config: { access: 'public' },
    schema: {
      tags: ['scores'],
      operationId: 'getWeights',
      summary: 'Get the incentive weights',
      description: 'Groups, layers with their winners, raw and final weights, and the burn weight (SPEC 6).',
      security: PUBLIC,
      params: CompetitionParams,
      querystring: StagesQuery,
      response: { 200: WeightsSchema, ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const { competitionId } = request.params;
    const scored = app.scores.get(competitionId, request.query.stages);
    return sendCached(reply, scored, 'weights', () => weightsBody(competitionId, scored.scores));
  });
};
