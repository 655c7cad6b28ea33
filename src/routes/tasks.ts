import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, ComplexitySchema, Id, StageSchema, StagesQuery, problems } from '../schemas/common.js';
import { trimLowerCase, TaskListSchema, TaskUpsertSchema, TaskWriteResultSchema } from '../schemas/tasks.js';
import { TaskDetailSchema } from '../schemas/scores.js';
import { fromTaskInput, importQnaTasks } from '../services/tasks.js';
import { taskDetailView } from '../services/views.js';
import { notFound, Problem } from '../errors.js';
import { COMPLEXITIES, STAGES } from '../scoring/types.js';
import { ADMIN, PUBLIC } from './security.js';

const unsupportedImport = () =>
  new Problem(415, 'unsupported-media-type', 'Unsupported media type',
    'send a non-empty Parquet file (application/vnd.apache.parquet) or JSON Lines (application/x-ndjson)');

const TaskParams = CompetitionParams.extend({ taskId: Id.describe('Task identifier.') });

export const taskRoutes: FastifyPluginAsyncZod = async (app) => {
  const requireCompetition = (id: string) => {
    if (!app.repos.competitions.get(id)) throw notFound(`competition ${id} does not exist`);
  };

  app.put('/competitions/:competitionId/tasks', {
    config: { access: 'admin' },
    schema: {
      tags: ['tasks'],
      operationId: 'putTasks',
      summary: 'Create or update tasks in bulk',
      description: 'Atomic: one invalid task stores nothing. Changing the type or rubric of a task that has runs is a 409.',
      security: ADMIN,
      params: CompetitionParams,
      body: TaskUpsertSchema,
      response: { 200: TaskWriteResultSchema, ...problems(400, 401, 403, 404, 409, 413) },
    },
  }, async (request) => {
    const { competitionId } = request.params;
    requireCompetition(competitionId);
    const result = app.repos.tasks.upsertMany(competitionId, request.body.tasks.map(fromTaskInput));
    app.scores.invalidate(competitionId);
    return result;
  });

  app.post('/competitions/:competitionId/tasks/import', {
    config: { access: 'admin' },
    schema: {
      tags: ['tasks'],
      operationId: 'importQnaTasks',
      summary: 'Import SWE-Atlas QnA tasks from Parquet or JSON Lines',
      description:
        'Body: a Parquet file (`application/vnd.apache.parquet`) or JSON Lines (`application/x-ndjson`) in the ' +
        'SWE-Atlas-QnA-AA row schema. Every row is validated; one bad row rejects the whole import with its row ' +
        'number and field. Re-importing the same file changes nothing. Body limit 32 MiB; for larger files use ' +
        '`npm run import`.',
      security: ADMIN,
      params: CompetitionParams,
      querystring: z.object({
        // Inline enums, not the named components: a $ref would drop the parameter's description.
        stage: z.enum(STAGES).optional().describe('Stage of every imported task; default `evaluation`.'),
        complexity: z
          .preprocess(trimLowerCase, z.enum(COMPLEXITIES))
          .optional()
          .describe('Complexity of every imported task (any case); default none.'),
      }),
      response: { 200: TaskWriteResultSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
    },
  }, async (request) => {
    const { competitionId } = request.params;
    requireCompetition(competitionId);
    if (!Buffer.isBuffer(request.body) || request.body.length === 0) {
      throw unsupportedImport();
    }
    const format = request.headers['content-type']?.startsWith('application/x-ndjson') ? 'jsonl' : 'parquet';
    const result = await importQnaTasks(app.repos, competitionId, request.body, format, request.query);
    app.scores.invalidate(competitionId);
    return result;
  });

  app.get('/competitions/:competitionId/tasks', {
    config: { access: 'public' },
    schema: {
      tags: ['tasks'],
      operationId: 'listTasks',
      summary: 'List tasks with their run counts',
      security: PUBLIC,
      params: CompetitionParams,
      response: { 200: TaskListSchema, ...problems(401, 404) },
    },
  }, async (request) => {
    const { competitionId } = request.params;
    requireCompetition(competitionId);
    const criteria = app.repos.tasks.criteriaCounts(competitionId);
    const tasks = app.repos.tasks.list(competitionId).map((t) => ({
      id: t.id, type: t.type as 'swebench_verified' | 'swe_atlas_qna', stage: StageSchema.parse(t.stage),
      complexity: t.complexity === null ? null : ComplexitySchema.parse(t.complexity), plannedRuns: t.plannedRuns,
      runCount: t.runCount, baselineRuns: t.baselineRuns, criteriaCount: criteria.get(t.id) ?? 0,
    }));
    return { competitionId, tasks };
  });

  app.get('/competitions/:competitionId/tasks/:taskId', {
    config: { access: 'public' },
    schema: {
      tags: ['tasks'],
      operationId: 'getTask',
      summary: 'Get a task with its baseline, miners and rubric statistics',
      security: PUBLIC,
      params: TaskParams,
      querystring: StagesQuery,
      response: { 200: TaskDetailSchema, ...problems(400, 401, 404) },
    },
  }, async (request) => taskDetailView(app, request.params.competitionId, request.params.taskId, request.query.stages));
};
