import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { jsonTextOf } from '../http/jsonText.js';
import { CompetitionParams, problems } from '../schemas/common.js';
import {
  RunBatchResultSchema,
  RunBatchSchema,
  RunListQuery,
  RunPageSchema,
  RunParams,
  RunSchema,
} from '../schemas/runs.js';

export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  const { runs } = app.services;

  app.post(
    '/competitions/:competitionId/runs',
    {
      config: { access: 'validator' },
      // A bearer validator is known before its body is read (src/plugins/auth.ts): one that may not
      // write here (not on the list, outdated) is refused before a byte of its batch is. A signed one
      // is known once its body is checked, and refused then, in the write's transaction.
      onRequest: async (request) => {
        const { principal, params } = request as typeof request & { params: { competitionId: string } };
        // An id the schema refuses is no key to look up (PostgreSQL refuses a NUL in text): its 400 comes next.
        if (principal?.kind !== 'validator' || !CompetitionParams.safeParse(params).success) return;
        await runs.admitWriter(params.competitionId, principal);
      },
      schema: {
        tags: ['runs'],
        operationId: 'postRuns',
        summary: 'Submit a batch of run results',
        description:
          'Up to 5,000 runs, stored atomically: a rejected batch stores nothing. Idempotent by `runId`: a run ' +
          'identical to the stored one is a duplicate; different content is a 409 naming the ids. Unknown task: 404. ' +
          "Votes that do not match the task's rubric (SPEC 7): 422 naming the run and criterion. A validator older " +
          "than the competition's `minValidatorVersion` (by its last heartbeat), or with none: 426 naming the version.",
        params: CompetitionParams,
        body: RunBatchSchema,
        response: { 200: RunBatchResultSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 422, 426) },
      },
    },
    async (request) => {
      // The body as parsed, when its fast check took it as sent: its votes are stored as sent.
      const text = jsonTextOf(request.body);
      const result = await runs.ingest(request.params.competitionId, request.body.runs, request.principal!, text);
      app.metrics.runsIngested.inc(result.accepted);
      return result;
    },
  );

  app.get(
    '/competitions/:competitionId/runs',
    {
      config: { access: 'public' },
      schema: {
        tags: ['runs'],
        operationId: 'listRuns',
        summary: 'List stored runs',
        description:
          'Oldest first, filtered by validator, miner, task or kind; page with `nextCursor`, which stays valid while runs are added.',
        params: CompetitionParams,
        querystring: RunListQuery,
        response: { 200: RunPageSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => runs.list(request.params.competitionId, request.query, request.principal),
  );

  app.get(
    '/competitions/:competitionId/runs/:runId',
    {
      config: { access: 'public' },
      schema: {
        tags: ['runs'],
        operationId: 'getRun',
        summary: 'Get a stored run',
        description: 'With per-criterion grading for QnA runs sent with votes.',
        params: RunParams,
        response: { 200: RunSchema, ...problems(401, 404) },
      },
    },
    async (request) => runs.get(request.params.competitionId, request.params.runId, request.principal),
  );

  app.delete(
    '/competitions/:competitionId/runs/:runId',
    {
      config: { access: 'validator' },
      schema: {
        tags: ['runs'],
        operationId: 'deleteRun',
        summary: 'Delete a run',
        description:
          'The admin may delete any run; a validator only the runs it sent (403 otherwise), and only at the ' +
          "competition's `minValidatorVersion` or later (426 otherwise).",
        params: RunParams,
        response: { 200: RunSchema, ...problems(401, 403, 404, 426) },
      },
    },
    async (request) => runs.delete(request.params.competitionId, request.params.runId, request.principal!),
  );
};
