import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Id, problems } from '../schemas/common.js';
import { ValidatorCreatedSchema, ValidatorInputSchema, ValidatorListSchema, ValidatorSchema } from '../schemas/admin.js';

export const validatorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { validators } = app.services;

  app.post('/validators', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'createValidator',
      summary: 'Create a validator and its key',
      description: 'The key is in this response only; the server keeps its SHA-256 hash.',
      body: ValidatorInputSchema,
      response: { 201: ValidatorCreatedSchema, ...problems(400, 401, 403) },
    },
  }, async (request, reply) => reply.code(201).send(validators.create(request.body.name)));

  app.get('/validators', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'listValidators',
      summary: 'List validators',
      response: { 200: ValidatorListSchema, ...problems(401, 403) },
    },
  }, async () => ({ validators: validators.list() }));

  app.delete('/validators/:id', {
    config: { access: 'admin' },
    schema: {
      tags: ['validators'],
      operationId: 'revokeValidator',
      summary: 'Revoke a validator\'s key',
      description: 'The validator\'s runs stay; its key stops working at once.',
      params: z.object({ id: Id.describe('Validator id.') }),
      response: { 200: ValidatorSchema, ...problems(400, 401, 403, 404) },
    },
  }, async (request) => validators.revoke(request.params.id));
};
