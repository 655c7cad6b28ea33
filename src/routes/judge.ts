import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import { JudgeInputSchema, JudgeParams, JudgeRecordSchema } from '../schemas/judge.js';

export const judgeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { judges } = app.services;
  const path = '/competitions/:competitionId/judge';

  app.put(
    path,
    {
      // The service takes the write gate: exclusively when the write recounts every run.
      config: { access: 'admin', ownWriteGate: true },
      schema: {
        tags: ['scores'],
        operationId: 'putJudge',
        summary: 'Set the judge configuration',
        description:
          'Sets the judge that grades QnA runs (SPEC 12); it is in force from now, every earlier one stays (audited). ' +
          'Only QnA runs graded under the configuration in force are scored: the others are stale until it returns. ' +
          'Its `votes` becomes the competition’s `judgeVotes` (one setting); `promptTemplate` must carry `{answer_date}`.',
        params: CompetitionParams,
        body: JudgeInputSchema,
        response: { 200: JudgeRecordSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => judges.put(request.params.competitionId, request.body, request.principal!),
  );

  app.get(
    path,
    {
      config: { access: 'public' },
      schema: {
        tags: ['scores'],
        operationId: 'getJudge',
        summary: 'Get the judge configuration in force',
        description: 'The judge configuration set last, with its digest; 404 when none is set.',
        params: CompetitionParams,
        response: { 200: JudgeRecordSchema, ...problems(401, 404) },
      },
    },
    async (request) => judges.get(request.params.competitionId),
  );

  app.get(
    `${path}/:digest`,
    {
      config: { access: 'public' },
      schema: {
        tags: ['scores'],
        operationId: 'getJudgeByDigest',
        summary: 'Get a judge configuration by digest',
        description: 'Any configuration the competition ever held; 404 when it never held this digest.',
        params: JudgeParams,
        response: { 200: JudgeRecordSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => judges.get(request.params.competitionId, request.params.digest),
  );
};
