import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import { CompetitionInputSchema, CompetitionListSchema, CompetitionSchema } from '../schemas/competitions.js';

export const competitionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { competitions } = app.services;

  app.put(
    '/competitions/:competitionId',
    {
      // The service takes the write gate: exclusively when the write recounts every run.
      config: { access: 'admin', ownWriteGate: true },
      schema: {
        tags: ['competitions'],
        operationId: 'putCompetition',
        summary: 'Create or update a competition',
        description:
          'Fields left out keep their stored value, or their default on creation. ' +
          'Changing token weights recomputes every aggregate; a 422 refuses weights under which a token sum would ' +
          'pass 2^53 - 1, changing nothing. `validators` sets the allow-list: only the validators it names may write ' +
          'to the competition (others get a 403), `null` lets every validator write; a validator it names that does ' +
          'not exist is a 422.',
        params: CompetitionParams,
        body: CompetitionInputSchema,
        response: { 200: CompetitionSchema, 201: CompetitionSchema, ...problems(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const { created, competition } = await competitions.put(
        request.params.competitionId,
        request.body,
        request.principal!,
      );
      return reply.code(created ? 201 : 200).send(competition);
    },
  );

  app.get(
    '/competitions',
    {
      config: { access: 'public' },
      schema: {
        tags: ['competitions'],
        operationId: 'listCompetitions',
        summary: 'List competitions',
        response: { 200: CompetitionListSchema, ...problems(401) },
      },
    },
    async (request) => ({ competitions: await competitions.list(request.principal) }),
  );

  app.get(
    '/competitions/:competitionId',
    {
      config: { access: 'public' },
      schema: {
        tags: ['competitions'],
        operationId: 'getCompetition',
        summary: 'Get a competition',
        params: CompetitionParams,
        response: { 200: CompetitionSchema, ...problems(401, 404) },
      },
    },
    async (request) => competitions.get(request.params.competitionId, request.principal),
  );
};
