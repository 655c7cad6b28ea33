import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, Id, MinerHotkey, StagesQuery, problems } from '../schemas/common.js';
import { MinerInputSchema, MinerSchema } from '../schemas/admin.js';
import { MinerDetailSchema } from '../schemas/scores.js';

const MinerParams = CompetitionParams.extend({ hotkey: Id.describe('Miner hotkey.') });
/** What a write names: never `baseline`, coverage's miner of the baseline pairs. */
const MinerWriteParams = CompetitionParams.extend({ hotkey: MinerHotkey.describe('Miner hotkey; not `baseline`.') });

export const minerRoutes: FastifyPluginAsyncZod = async (app) => {
  const { miners, scores } = app.services;

  app.put(
    '/competitions/:competitionId/miners/:hotkey',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['miners'],
        operationId: 'putMiner',
        summary: 'Exclude or reinstate a miner',
        description:
          'An excluded miner keeps its runs but takes part in nothing: no rank, no group score, no contest, no weight.',
        params: MinerWriteParams,
        body: MinerInputSchema,
        response: { 200: MinerSchema, 201: MinerSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { competitionId, hotkey } = request.params;
      const { created, miner } = await miners.setExclusion(competitionId, hotkey, request.body, request.principal!);
      return reply.code(created ? 201 : 200).send(miner);
    },
  );

  app.get(
    '/competitions/:competitionId/miners/:hotkey',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['miners'],
        operationId: 'getMiner',
        summary: "Get a miner's leaderboard entry and per-task breakdown",
        params: MinerParams,
        querystring: StagesQuery,
        response: { 200: MinerDetailSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) => {
      const { competitionId, hotkey } = request.params;
      return app.views.send(request, reply, scores.miner(competitionId, hotkey, request.query.stages));
    },
  );
};
