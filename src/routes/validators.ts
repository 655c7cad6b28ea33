import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, Id, StagesQuery, problems, queryInteger } from '../schemas/common.js';
import { sendBody } from '../http/representation.js';
import { jsonBody } from '../http/body.js';
import { withLiveness } from '../views/validators.js';
import { HeartbeatInputSchema, HeartbeatSchema } from '../schemas/heartbeat.js';
import {
  AuditPageSchema,
  CompetitionValidatorListSchema,
  ValidatorCreatedSchema,
  ValidatorInputSchema,
  ValidatorListSchema,
  ValidatorSchema,
  ValidatorStandingInputSchema,
  ValidatorStandingSchema,
} from '../schemas/admin.js';

export const validatorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { validators, scores, audit } = app.services;

  app.post(
    '/validators',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['validators'],
        operationId: 'createValidator',
        summary: 'Create a validator and its key',
        description:
          'With `hotkey` (ss58), the validator signs its requests with that key (Epistula v2) and gets no API key. ' +
          'Without, the key is in this response only; the server keeps its SHA-256 hash. A hotkey already registered is a 409.',
        body: ValidatorInputSchema,
        response: { 201: ValidatorCreatedSchema, ...problems(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await validators.create(request.body, request.principal!)),
  );

  app.post(
    '/validators/heartbeat',
    {
      config: { access: 'validator' },
      schema: {
        tags: ['validators'],
        operationId: 'validatorHeartbeat',
        summary: 'Say the validator is alive, and which version it runs',
        description:
          'Records when the validator was last seen and the version (semver) and code digest it runs: one row ' +
          'updated, not audited, no score touched. Validators listings show it; one silent longer than ' +
          "SCORING_VALIDATOR_SILENT_AFTER_MS is marked `silent`. A competition's `minValidatorVersion` refuses " +
          'run writes (426) from a validator whose last heartbeat names an older version, or that sent none.',
        body: HeartbeatInputSchema,
        response: { 200: HeartbeatSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => validators.heartbeat(request.body, request.principal!),
  );

  app.get(
    '/validators',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['validators'],
        operationId: 'listValidators',
        summary: 'List validators',
        response: { 200: ValidatorListSchema, ...problems(401, 403) },
      },
    },
    async () => ({ validators: await validators.list() }),
  );

  app.delete(
    '/validators/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['validators'],
        operationId: 'revokeValidator',
        summary: "Revoke a validator's key",
        description: "The validator's runs stay; its key stops working at once.",
        params: z.object({ id: Id.describe('Validator id.') }),
        response: { 200: ValidatorSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => validators.revoke(request.params.id, request.principal!),
  );

  app.get(
    '/competitions/:competitionId/validators',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['validators'],
        operationId: 'listCompetitionValidators',
        summary: 'Per-validator activity and agreement in a competition',
        description:
          'For each validator that sent runs (or is excluded): its runs, miners, tasks, resolve rate, and how its ' +
          "resolve rate compares with the other counted validators' on the (task, miner) pairs they share (SPEC 10). " +
          'Flagged: at least 10 shared pairs and a mean difference of 0.2 or more.',
        params: CompetitionParams,
        querystring: StagesQuery,
        response: { 200: CompetitionValidatorListSchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      // Liveness changes with every heartbeat and with the clock: added to the kept table on each read.
      const [table, live] = await Promise.all([
        scores.validators(request.params.competitionId, request.query.stages),
        validators.liveness(),
      ]);
      return sendBody(request, reply, jsonBody(withLiveness(table, live)));
    },
  );

  app.put(
    '/competitions/:competitionId/validators/:validatorId',
    {
      // The service takes the write gate: exclusively when the write recounts every run.
      config: { access: 'admin', ownWriteGate: true },
      schema: {
        tags: ['validators'],
        operationId: 'putCompetitionValidator',
        summary: "Exclude or include a validator's runs in a competition",
        description:
          "An excluded validator's runs stay stored and listed but take part in no score, weight or snapshot, exactly " +
          'as if never sent, until it is included again. A 422 refuses an inclusion whose runs would take a token sum ' +
          'past 2^53 - 1, changing nothing.',
        params: CompetitionParams.extend({ validatorId: Id.describe('Validator id.') }),
        body: ValidatorStandingInputSchema,
        response: {
          200: ValidatorStandingSchema,
          201: ValidatorStandingSchema,
          ...problems(400, 401, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const { competitionId, validatorId } = request.params;
      const { created, standing } = await validators.setStanding(
        competitionId,
        validatorId,
        request.body,
        request.principal!,
      );
      return reply.code(created ? 201 : 200).send(standing);
    },
  );

  app.get(
    '/audit',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['validators'],
        operationId: 'listAudit',
        summary: 'The audit log',
        description:
          "Every admin write and every run deletion, oldest first: who, when, what, and a summary (a deleted run's whole content). Append-only.",
        querystring: z.strictObject({
          competition: Id.optional().describe('Only entries about this competition.'),
          limit: queryInteger(1, 1000, 100).describe('Entries per page, 1 to 1,000; default 100.'),
          cursor: z.string().max(32).optional().describe('`nextCursor` of the previous page.'),
        }),
        response: { 200: AuditPageSchema, ...problems(400, 401, 403) },
      },
    },
    async (request) =>
      audit.list({
        competitionId: request.query.competition,
        cursor: request.query.cursor,
        limit: request.query.limit,
      }),
  );
};
