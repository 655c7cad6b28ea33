import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import { MetagraphInputSchema, MetagraphRecordSchema } from '../schemas/metagraph.js';

export const metagraphRoutes: FastifyPluginAsyncZod = async (app) => {
  const { metagraphs } = app.services;
  const path = '/competitions/:competitionId/metagraph';

  app.put(
    path,
    {
      config: { access: 'admin' },
      schema: {
        tags: ['scores'],
        operationId: 'putMetagraph',
        summary: 'Record the metagraph',
        description:
          'Records the subnet at one block (SPEC 11); it is in force from now, every earlier one stays (audited). ' +
          'Uids 0-65535 and ss58 hotkeys (checksum checked), each at most once: a 400 names the neuron at fault by index.',
        params: CompetitionParams,
        body: MetagraphInputSchema,
        response: { 200: MetagraphRecordSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => metagraphs.put(request.params.competitionId, request.body, request.principal!),
  );

  app.get(
    path,
    {
      config: { access: 'public' },
      schema: {
        tags: ['scores'],
        operationId: 'getMetagraph',
        summary: 'Get the metagraph in force',
        description: 'The metagraph recorded last, with its digest; 404 when none is recorded.',
        params: CompetitionParams,
        response: { 200: MetagraphRecordSchema, ...problems(401, 404) },
      },
    },
    async (request) => metagraphs.get(request.params.competitionId),
  );
};
