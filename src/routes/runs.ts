import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, problems } from '../schemas/common.js';
import { RunBatchResultSchema, RunBatchSchema, RunParams, RunSchema } from '../schemas/runs.js';
import { ingestRuns } from '../services/ingestRuns.js';
import { deleteRun, runView } from '../services/runs.js';
import { notFound } from '../errors.js';
import { PUBLIC, VALIDATOR } from './security.js';

export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/competitions/:competitionId/runs', {
    config: { access: 'validator' },
    schema: {
      tags: ['runs'],
      operationId: 'postRuns',
      summary: 'Submit a batch of run results',
      description:
        'Up to 5,000 runs, stored atomically: a rejected batch stores nothing. Idempotent by `runId`: a run ' +
        'identical to the stored one is a duplicate; different content is a 409 naming the ids. Unknown task: 404. ' +
        'Votes that do not match the task\'s rubric (SPEC 7): 422 naming the run and criterion.',
      security: VALIDATOR,
      params: CompetitionParams,
      body: RunBatchSchema,
      response: { 200: RunBatchResultSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 422) },
    },
  }, async (request) => {
    const { competitionId } = request.params;
    const principal = request.principal!;
    const result = ingestRuns(app.repos, competitionId, request.body.runs, principal.kind === 'validator' ? principal.id : null);
    if (result.accepted > 0) app.scores.invalidate(competitionId);
    app.metrics.runsIngested.inc(result.accepted);
    return result;
  });

  app.get('/competitions/:competitionId/runs/:runId', {
    config: { access: 'public' },
    schema: {
      tags: ['runs'],
      operationId: 'getRun',
      summary: 'Get a stored run',
      description: 'With per-criterion grading for QnA runs sent with votes.',
      security: PUBLIC,
      params: RunParams,
      response: { 200: RunSchema, ...problems(401, 404) },
    },
  }, async (request) => {
    const { competitionId, runId } = request.params;
    const competition = app.repos.competitions.get(competitionId);
    if (!competition) throw notFound(`competition ${competitionId} does not exist`);
    const run = app.repos.runs.get(competitionId, runId);
    if (!run) throw notFound(`run ${runId} does not exist in competition ${competitionId}`);
    return runView(run, competition.tokenWeights);
  });

  app.delete('/competitions/:competitionId/runs/:runId', {
    config: { access: 'validator' },
    schema: {
      tags: ['runs'],
      operationId: 'deleteRun',
      summary: 'Delete a run',
      description: 'The admin may delete any run; a validator only the runs it sent (403 otherwise).',
      security: VALIDATOR,
      params: RunParams,
      response: { 200: RunSchema, ...problems(401, 403, 404) },
    },
  }, async (request) => {
    const { competitionId, runId } = request.params;
    const deleted = deleteRun(app.repos, competitionId, runId, request.principal!);
    app.scores.invalidate(competitionId);
    return deleted;
  });
};
