import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, Id, problems } from '../schemas/common.js';
import {
  IdentitySchema,
  MinerHistorySchema,
  PageQuery,
  ScoreQuery,
  ScoreResultSchema,
  SnapshotInputSchema,
  SnapshotListSchema,
  SnapshotParams,
  SnapshotSchema,
  WeightsHistorySchema,
} from '../schemas/snapshots.js';
import { RULES_VERSION } from '../scoring/index.js';
import { jsonBody, textBody } from '../http/body.js';
import { namesForm, notModified, sendBody } from '../http/representation.js';

/** JSON already serialized, as its bytes (compressed on the way out like any other answer). */
function sendJson(reply: FastifyReply, bytes: Uint8Array): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

export const snapshotRoutes: FastifyPluginAsyncZod = async (app) => {
  const { snapshots, score } = app.services;
  const base = '/competitions/:competitionId/snapshots';

  app.post(
    base,
    {
      config: { access: 'admin' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'takeSnapshot',
        summary: 'Take a snapshot of the scores',
        description:
          'Freezes the leaderboard and weights with their exact input, chained to the previous snapshot and signed.',
        params: CompetitionParams,
        body: SnapshotInputSchema,
        response: { 201: SnapshotSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const document = await snapshots.take(request.params.competitionId, request.body ?? {}, request.principal!);
      return sendBody(request, reply.code(201), textBody(document));
    },
  );

  app.get(
    base,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'listSnapshots',
        summary: 'List snapshots',
        description: 'Oldest first, without their leaderboard and weights.',
        params: CompetitionParams,
        querystring: PageQuery,
        response: { 200: SnapshotListSchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const page = await snapshots.list(request.params.competitionId, request.query.cursor, request.query.limit);
      // As the response schema would serialize it, kept with its ETag (a history read, API.md 1.1).
      return sendBody(request, reply, jsonBody(SnapshotListSchema.parse(page)));
    },
  );

  app.get(
    `${base}/latest`,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'getLatestSnapshot',
        summary: 'Get the latest snapshot',
        params: CompetitionParams,
        response: { 200: SnapshotSchema, ...problems(401, 404) },
      },
    },
    async (request, reply) =>
      sendBody(request, reply, textBody(await snapshots.get(request.params.competitionId, 'latest'))),
  );

  app.get(
    `${base}/:seq`,
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'getSnapshot',
        summary: 'Get a snapshot',
        description: 'Served as stored: its bytes are what `hash` covers (after canonicalization).',
        params: SnapshotParams,
        response: { 200: SnapshotSchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendBody(request, reply, textBody(await snapshots.get(request.params.competitionId, request.params.seq))),
  );

  app.get(
    `${base}/:seq/input`,
    {
      config: { access: 'public', conditional: true },
      schema: {
        tags: ['snapshots'],
        operationId: 'getSnapshotInput',
        summary: "Get a snapshot's input document",
        description:
          'NDJSON, exactly as the competition stood when the snapshot was taken, whatever happened after: line 1 ' +
          '`{"competition": …}`, then `{"task": …}` lines by task id, then `{"run": …}` lines by run id (docs/CANONICAL_JSON.md). ' +
          "Its SHA-256 is the snapshot's `inputDigest`; `swe-scoring score` or `verify` recompute the scores from it.",
        params: SnapshotParams,
        response: { 200: z.string().describe('The input document.'), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { competitionId, seq } = request.params;
      const input = await snapshots.input(competitionId, seq);
      // Its bytes never change, and their SHA-256 is known without reading them: a re-verifier
      // holding the document gets a 304 rather than the whole input again. Weak, since the same
      // tag covers the compressed forms (@fastify/compress), which are equivalent but not the same bytes.
      // Vary on every answer: @fastify/compress adds it only to a 200 it compresses, and a 304 must
      // carry the Vary its 200 would (RFC 9110 15.4.5), as a plain 200 must for a cache to keep it apart.
      reply
        .header('etag', `W/"${input.inputDigest}"`)
        .header('cache-control', 'no-cache')
        .header('vary', 'accept-encoding');
      const ifNoneMatch = request.headers['if-none-match'];
      // The one If-None-Match rule (namesForm): the tag, weak or strong, or `*`.
      if (ifNoneMatch && namesForm(ifNoneMatch, `"${input.inputDigest}"`)) return notModified(reply);
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${competitionId}-snapshot-${seq}-input.ndjson"`)
        .send(input.open() as never);
    },
  );

  app.get(
    '/competitions/:competitionId/miners/:hotkey/history',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'getMinerHistory',
        summary: "A miner's rank, score and weight across snapshots",
        params: CompetitionParams.extend({ hotkey: Id.describe('Miner hotkey.') }),
        querystring: PageQuery,
        response: { 200: MinerHistorySchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { competitionId, hotkey } = request.params;
      const page = await snapshots.minerHistory(competitionId, hotkey, request.query.cursor, request.query.limit);
      return sendBody(request, reply, jsonBody(page));
    },
  );

  app.get(
    '/competitions/:competitionId/weights/history',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        tags: ['snapshots'],
        operationId: 'getWeightsHistory',
        summary: 'Final weights across snapshots',
        params: CompetitionParams,
        querystring: PageQuery,
        response: { 200: WeightsHistorySchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const page = await snapshots.weightsHistory(
        request.params.competitionId,
        request.query.cursor,
        request.query.limit,
      );
      return sendBody(request, reply, jsonBody(page));
    },
  );

  app.get(
    '/identity',
    {
      config: { access: 'public' },
      schema: {
        tags: ['snapshots'],
        operationId: 'getIdentity',
        summary: "The server's address for signed requests, and its snapshot-signing key",
        response: { 200: IdentitySchema, ...problems(401) },
      },
    },
    async () => ({
      hotkey: app.services.signatures.serverAddress,
      publicKey: snapshots.publicKeyPem,
      signingKeys: await snapshots.signingKeys(),
      algorithm: 'ed25519' as const,
      rulesVersion: RULES_VERSION,
    }),
  );

  app.post(
    '/score',
    {
      // An input document is NDJSON only (a Parquet body is a 415 that says so). It is scored in a
      // worker thread (src/services/scoreInWorker.ts) and writes nothing: no write gate to wait on.
      config: { access: 'validator', fileBody: ['application/x-ndjson'], ownWriteGate: true },
      schema: {
        tags: ['snapshots'],
        operationId: 'scoreDocument',
        summary: 'Score an input document without storing anything',
        description:
          'Body: an input document (`application/x-ndjson`, the format of GET …/snapshots/{seq}/input), within the ' +
          'body limit. Returns the leaderboard and weights the scoring core computes from it; a malformed document is ' +
          'a 400 naming the line and field. Scored off the event loop, within limits: a document announcing more ' +
          'miners, tasks or runs than the server takes, or whose scoring needs more memory, time or answer bytes ' +
          'than it allows, is a 413 naming the limit (`swe-scoring score` scores any document offline). Past the ' +
          'documents the server scores at once, a 503 with Retry-After.',
        querystring: ScoreQuery,
        response: { 200: ScoreResultSchema, ...problems(400, 401, 403, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      // The worker's JSON, sent as it is: serialized through the schema, a key such as a hotkey
      // `__proto__` would be lost (a zod record drops it).
      return sendJson(reply, await score(body, request.query.stages));
    },
  );
};
