import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, Id, StagesQuery, problems } from '../schemas/common.js';
import { MinerInputSchema, MinerSchema } from '../schemas/admin.js';
import { MinerDetailSchema } from '../schemas/scores.js';
import { leaderboardEntry, minerTaskView } from '../views/scores.js';
import { notFound } from '../errors.js';
import { sendCached } from './cachedJson.js';
import { ADMIN, PUBLIC } from './security.js';

const MinerParams = CompetitionParams.extend({ hotkey: Id.describe('Miner hotkey.') });

export const minerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.put('/competitions/:competitionId/miners/:hotkey', {
    config: { access: 'admin' },
    schema: {
      tags: ['miners'],
      operationId: 'putMiner',
      summary: 'Exclude or reinstate a miner',
      description: 'An excluded miner keeps its runs but takes part in nothing: no rank, no group score, no contest, no weight.',
      security: ADMIN,
      params: MinerParams,
      body: MinerInputSchema,
      response: { 200: MinerSchema, 201: MinerSchema, ...problems(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { competitionId, hotkey } = request.params;
    if (!app.repos.competitions.get(competitionId)) throw notFound(`competition ${competitionId} does not exist`);
    const created = app.repos.miners.setExcluded(competitionId, hotkey, request.body.excluded, request.body.reason ?? null);
    app.scores.invalidate(competitionId);
    const m = app.repos.miners.get(competitionId, hotkey)!;
    return reply.code(created ? 201 : 200).send({ competitionId, hotkey, excluded: m.excluded, reason: m.reason });
  });

  app.get('/competitions/:competitionId/miners/:hotkey', {
    config: { access: 'public' },
    schema: {
      tags: ['miners'],
      operationId: 'getMiner',
      summary: 'Get a miner\'s leaderboard entry and per-task breakdown',
      security: PUBLIC,
      params: MinerParams,
      querystring: StagesQuery,
      response: { 200: MinerDetailSchema, ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const { competitionId, hotkey } = request.params;
    const scored = app.scores.get(competitionId, request.query.stages);
    const found = scored.minerTasks(hotkey);
    if (!found) throw notFound(`miner ${hotkey} has no runs and no standing in competition ${competitionId}`);
    return sendCached(reply, scored, `miner:${hotkey}`, () => ({
      competitionId,
      stages: scored.scores.stages,
      ...leaderboardEntry(found.miner),
      tasks: found.tasks.map(minerTaskView),
    }));
  });
};
