import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, Id, LIMITS, StagesQuery, problems } from '../schemas/common.js';
import { trimLowerCase, TaskListSchema, TaskUpsertSchema, TaskWriteResultSchema } from '../schemas/tasks.js';
import { TaskDetailSchema } from '../schemas/scores.js';
import { COMPLEXITIES, STAGES } from '../scoring/types.js';
import { streamedBody, uploadPieces } from './streamBody.js';
import { FILE_TYPES } from '../plugins/contentTypes.js';

const TaskParams = CompetitionParams.extend({ taskId: Id.describe('Task identifier.') });

export const taskRoutes: FastifyPluginAsyncZod = async (app) => {
  const { tasks, scores } = app.services;

  app.put(
    '/competitions/:competitionId/tasks',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['tasks'],
        operationId: 'putTasks',
        summary: 'Create or update tasks in bulk',
        description:
          'Atomic: one invalid task stores nothing. Changing the type or rubric of a task that has runs is a 409.',
        params: CompetitionParams,
        body: TaskUpsertSchema,
        response: { 200: TaskWriteResultSchema, ...problems(400, 401, 403, 404, 409, 413) },
      },
    },
    async (request) => tasks.upsert(request.params.competitionId, request.body.tasks, request.principal!),
  );

  // The file is written to disk as it arrives (src/routes/streamBody.ts), in a scope of its own:
  // the other routes keep the shared parsers (src/plugins/contentTypes.ts).
  await app.register(importRoute);

  app.get(
    '/competitions/:competitionId/tasks',
    {
      config: { access: 'public' },
      schema: {
        tags: ['tasks'],
        operationId: 'listTasks',
        summary: 'List tasks with their run counts',
        params: CompetitionParams,
        response: { 200: TaskListSchema, ...problems(401, 404) },
      },
    },
    async (request) => tasks.list(request.params.competitionId),
  );

  app.get(
    '/competitions/:competitionId/tasks/:taskId',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['tasks'],
        operationId: 'getTask',
        summary: 'Get a task with its baseline, miners and rubric statistics',
        params: TaskParams,
        querystring: StagesQuery,
        response: { 200: TaskDetailSchema, ...problems(400, 401, 404) },
      },
    },
    (request, reply) => {
      const { competitionId, taskId } = request.params;
      return app.views.send(
        request,
        reply,
        scores.task(competitionId, taskId, request.query.stages, request.principal),
      );
    },
  );
};

const importRoute: FastifyPluginAsyncZod = async (app) => {
  const { tasks } = app.services;
  for (const type of FILE_TYPES) {
    app.removeContentTypeParser(type);
    app.addContentTypeParser(type, streamedBody(LIMITS.bodyBytes));
  }

  app.post(
    '/competitions/:competitionId/tasks/import',
    {
      config: { access: 'admin', fileBody: true, ownWriteGate: true },
      schema: {
        tags: ['tasks'],
        operationId: 'importQnaTasks',
        summary: 'Import SWE-Atlas QnA tasks from Parquet or JSON Lines',
        description:
          'Body: a Parquet file (`application/vnd.apache.parquet`) or JSON Lines (`application/x-ndjson`) in the ' +
          'SWE-Atlas-QnA-AA row schema. Every row is validated; one bad row rejects the whole import with its row ' +
          'number and field. Re-importing the same file changes nothing. Body limit 32 MiB; for larger files use ' +
          '`npm run import`.',
        params: CompetitionParams,
        querystring: z.strictObject({
          // Inline enums, not the named components: a $ref would drop the parameter's description.
          stage: z.enum(STAGES).optional().describe('Stage of every imported task; default `evaluation`.'),
          complexity: z
            .preprocess(trimLowerCase, z.enum(COMPLEXITIES))
            .optional()
            .describe('Complexity of every imported task (any case); default none.'),
        }),
        response: { 200: TaskWriteResultSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const format = request.headers['content-type']?.startsWith('application/x-ndjson') ? 'jsonl' : 'parquet';
      return tasks.importQna(
        request.params.competitionId,
        uploadPieces(request),
        format,
        request.query,
        request.principal!,
      );
    },
  );
};
