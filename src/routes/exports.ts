// Streamed exports of runs and tasks (API.md "Exports"). The service returns a pull-based stream;
// the reply sends it as it comes, so the body is never held whole.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { CompetitionParams, problems } from '../schemas/common.js';
import { ExportBodySchema, RunExportQuery, TaskExportQuery } from '../schemas/exports.js';
import type { ExportBody } from '../services/exports.js';

function sendExport(reply: FastifyReply, body: ExportBody): FastifyReply {
  reply
    .type(body.contentType)
    .header('content-disposition', `attachment; filename="${body.filename}"`)
    .header('cache-control', 'no-store');
  if (body.runSeq !== undefined) reply.header('x-run-seq', String(body.runSeq));
  return reply.send(body.stream);
}

export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { exports } = app.services;

  app.get(
    '/competitions/:competitionId/runs/export',
    {
      config: { access: 'public' },
      schema: {
        tags: ['runs'],
        operationId: 'exportRuns',
        summary: 'Export every stored run as NDJSON, CSV or Parquet',
        description:
          'Streamed in constant memory, in storage order (`seq`). Point-in-time: the runs as they stood when the ' +
          'export started (the run sequence in the `x-run-seq` header); runs stored later are left out, runs deleted ' +
          'later are still in it. Columns: seq, runId, taskId, kind, minerHotkey, validatorId, attemptNo, resolved, ' +
          'tokensInput, tokensCachedInput, tokensOutput, timeTakenSeconds, agentSteps, createdAt, criteria (QnA runs sent ' +
          'with votes: an array in NDJSON, its JSON text in CSV and Parquet; null otherwise), judgeDigest, answerDate ' +
          '(QnA runs under a judge configuration, else null), stale (graded under a configuration other than the one ' +
          'in force: scored nowhere, SPEC 12). CSV: null is the empty field. ' +
          'Criteria come in rubric order; their ids are the answer key: unless the competition reveals answers or the ' +
          'admin asks, each is named by `position` instead.',
        params: CompetitionParams,
        querystring: RunExportQuery,
        response: { 200: ExportBodySchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendExport(reply, await exports.runs(request.params.competitionId, request.query.format, request.principal)),
  );

  app.get(
    '/competitions/:competitionId/tasks/export',
    {
      config: { access: 'public' },
      schema: {
        tags: ['tasks'],
        operationId: 'exportTasks',
        summary: 'Export every task as NDJSON or CSV',
        description:
          'Streamed, in task id order. Columns: id, type, stage, complexity, plannedRuns, runCount, baselineRuns, the QnA ' +
          'content (prompt, referenceAnswer, repositoryUrl, repositoryBaseCommit, language, category, dockerImage; null ' +
          'on SWE-bench tasks) and rubric (an array in NDJSON, its JSON text in CSV). The answer key as in task reads: ' +
          'unless the competition reveals answers or the admin asks, there is no referenceAnswer column and each ' +
          'criterion shows only position, type and change.',
        params: CompetitionParams,
        querystring: TaskExportQuery,
        response: { 200: ExportBodySchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendExport(reply, await exports.tasks(request.params.competitionId, request.query.format, request.principal)),
  );
};
