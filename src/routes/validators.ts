import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Id, problems } from '../schemas/common.js';
import { ValidatorCreatedSchema, ValidatorInputSchema, ValidatorListSchema, ValidatorSchema } from '../schemas/admin.js';
import { notFound } from '../errors.js';
import type { ValidatorRow } from '../db/validators.js';
import { ADMIN } from './security.js';

const view = (v: ValidatorRow) => ({ id: v.id, name: v.name, createdAt: v.createdAt, revokedAt: v.revokedAt });

export const validatorRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/validators', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'createValidator',
      summary: 'Create a validator and its key',
      description: 'The key is in this response only; the server keeps its SHA-256 hash.',
      security: ADMIN,
      body: ValidatorInputSchema,
      response: { 201: ValidatorCreatedSchema, ...problems(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { validator, apiKey } = app.repos.validators.create(request.body.name);
    return reply.code(201).send({ ...view(validator), apiKey });
  });

  app.get('/validators', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'listValidators',
      summary: 'List validators',
      security: ADMIN,
      response: { 200: ValidatorListSchema, ...problems(401, 403) },
    },
  }, async () => ({ validators: app.repos.validators.list().map(view) }));

  app.delete('/validators/:id', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'revokeValidator',
      summary: 'Revoke a validator\'s key',
      description: 'The validator\'s runs stay; its key stops working at once.',
      security: ADMIN,
      params: z.object({ id: Id.describe('Validator id.') }),
      response: { 200: ValidatorSchema, ...problems(400, 401, 403, 404) },
    },
  }, async (request) => {
    if (!app.repos.validators.revoke(request.params.id)) throw notFound(`validator ${request.params.id} does not exist`);
    return view(app.repos.validators.get(request.params.id)!);
  });
};
