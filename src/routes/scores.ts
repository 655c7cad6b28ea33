import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, StagesQuery, problems } from '../schemas/common.js';
import { LeaderboardPageSchema, LeaderboardQuery, WeightsSchema } from '../schemas/scores.js';
import { ChainWeightsSchema } from '../schemas/metagraph.js';
import { CoverageQuery, CoverageSchema } from '../schemas/coverage.js';
import { StabilityReportSchema } from '../schemas/judge.js';

/** The paths of the reads every dashboard and validator polls, under the API prefix (also answered early by src/http/fastReads.ts). */
export const SCORE_READ_PATHS = {
  leaderboard: '/competitions/:competitionId/leaderboard',
  weights: '/competitions/:competitionId/weights',
  chain: '/competitions/:competitionId/weights/chain',
} as const;

export const scoreRoutes: FastifyPluginAsyncZod = async (app) => {
  const { scores, coverage, stability } = app.services;

  app.get(
    SCORE_READ_PATHS.leaderboard,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['scores'],
        operationId: 'getLeaderboard',
        summary: 'Get the leaderboard',
        description:
          'Reflects every write acknowledged before the request. Without `limit`, `offset` and `hotkeys`, the whole ' +
          'ranked list; with them, a page of it or the chosen miners, each keeping its rank in the full list, and ' +
          '`total` the number of entries before paging.',
        params: CompetitionParams,
        querystring: LeaderboardQuery,
        response: { 200: LeaderboardPageSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) => {
      const { stages, ...page } = request.query;
      return app.views.send(request, reply, scores.leaderboard(request.params.competitionId, stages, page));
    },
  );

  app.get(
    SCORE_READ_PATHS.weights,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['scores'],
        operationId: 'getWeights',
        summary: 'Get the incentive weights',
        description: 'Groups, layers with their winners, raw and final weights, and the burn weight (SPEC 6).',
        params: CompetitionParams,
        querystring: StagesQuery,
        response: { 200: WeightsSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) =>
      app.views.send(request, reply, scores.weights(request.params.competitionId, request.query.stages)),
  );

  app.get(
    SCORE_READ_PATHS.chain,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['scores'],
        operationId: 'getChainWeights',
        summary: 'Get the weights as set on chain',
        description:
          'The final weights by uid under the metagraph in force (SPEC 11): `uids`, `weights` and `versionKey` for ' +
          '`subtensor.set_weights`, the integers exactly as the Bittensor SDK’s `convert_weights_and_uids_for_emit` ' +
          'makes them from `floats`. Unregistered miners’ weight is burned to `burnUid`. 409 when no metagraph is recorded.',
        params: CompetitionParams,
        querystring: StagesQuery,
        response: { 200: ChainWeightsSchema, ...problems(400, 401, 404, 409) },
      },
    },
    (request, reply) =>
      app.views.send(request, reply, scores.chain(request.params.competitionId, request.query.stages)),
  );

  app.get(
    '/competitions/:competitionId/coverage',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['scores'],
        operationId: 'getCoverage',
        summary: 'What still has to be run',
        description:
          'For every task of the stages and every miner that takes part (seen in a scored run, or registered in the ' +
          'metagraph in force at a uid other than burnUid and not a validator; not excluded), and each task with ' +
          'its baseline: runs ' +
          "planned (the task's plannedRuns, else the competition's), runs that are scored (not deleted, not from an " +
          'excluded validator) and runs missing (SPEC 13). `missing=true` lists only pairs still missing runs; ' +
          '`miner` and `task` choose pairs, and the summary covers every chosen pair. Reflects every write ' +
          'acknowledged before the request; ETag and 304 like every score read.',
        params: CompetitionParams,
        querystring: CoverageQuery,
        response: { 200: CoverageSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) => {
      const { stages, ...query } = request.query;
      return app.views.send(request, reply, coverage.read(request.params.competitionId, stages, query));
    },
  );

  app.get(
    '/competitions/:competitionId/criteria/report',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['scores'],
        operationId: 'getCriteriaReport',
        summary: 'How steady each kind of criterion is',
        description:
          'The stability report (SPEC 12): for each kind of criterion change (unchanged, `stability`, `precision`, ' +
          '`scale-correction`) and polarity, the number of criteria in the chosen stages’ tasks and their verdicts ' +
          '(one per scored QnA run and criterion) with met and split rates, for the baseline, each miner and pooled. ' +
          'Runs under an earlier judge configuration (stale) and runs of excluded validators or excluded miners count ' +
          'nowhere (an excluded miner is not listed). Reflects ' +
          'every write acknowledged before the request; ETag and 304 like every score read.',
        params: CompetitionParams,
        querystring: StagesQuery,
        response: { 200: StabilityReportSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) =>
      app.views.send(request, reply, stability.read(request.params.competitionId, request.query.stages)),
  );
};
