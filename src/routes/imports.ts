// Import sessions: upload a task file of any size in chunks, then commit it (all or nothing).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CompetitionParams, LIMITS, problems } from '../schemas/common.js';
import {
  ChunkParams,
  ImportCommitSchema,
  ImportSessionInputSchema,
  ImportSessionListSchema,
  ImportSessionSchema,
  SessionParams,
} from '../schemas/imports.js';
import { streamedBody, uploadPieces } from './streamBody.js';

export const CHUNK_TYPE = 'application/octet-stream';
const base = '/competitions/:competitionId/tasks/imports';

export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  const { imports } = app.services;
  const tags = ['tasks'];

  app.post(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'openImportSession',
        summary: 'Open an import session for a task file of any size',
        description:
          'Then send the file in order with `PUT …/imports/{sessionId}/chunks/{n}` (each chunk up to 32 MiB, ' +
          '`application/octet-stream`), and `POST …/imports/{sessionId}/commit`. The commit validates every row and stores ' +
          'all or nothing, as the one-request import does. `DELETE …/imports/{sessionId}` cancels; a session idle for 15 ' +
          'minutes expires. At most 4 sessions are open at once.',
        params: CompetitionParams,
        body: ImportSessionInputSchema,
        response: { 201: ImportSessionSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { format, ...options } = request.body;
      return reply.code(201).send(await imports.open(request.params.competitionId, format, options));
    },
  );

  app.get(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'listImportSessions',
        summary: "List a competition's open import sessions",
        description:
          'Sessions not yet committed, cancelled or expired, oldest first: what holds the 4 open sessions a server ' +
          'takes (a client that died mid-upload leaves its session open until it expires; DELETE cancels it).',
        params: CompetitionParams,
        response: { 200: ImportSessionListSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => imports.list(request.params.competitionId),
  );

  app.get(
    `${base}/:sessionId`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'getImportSession',
        summary: 'Get an import session: chunks and bytes received',
        params: SessionParams,
        response: { 200: ImportSessionSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => imports.get(request.params.competitionId, request.params.sessionId),
  );

  // A chunk (up to 32 MiB) is not gathered into one buffer: the handler writes it to the session's
  // file as it arrives, so a chunk costs the server a socket read's worth of memory, not its size
  // twice over (the pieces, then their concatenation). This scope's parser hands the body on as
  // the request stream; the other routes keep the shared parsers (src/plugins/contentTypes.ts).
  await app.register(chunkRoute);

  app.post(
    `${base}/:sessionId/commit`,
    {
      config: { access: 'admin', ownWriteGate: true },
      schema: {
        tags,
        operationId: 'commitImportSession',
        summary: 'Parse and store the uploaded file, all or nothing',
        description:
          'Every row is validated; one bad row rejects the whole file with its row number and field, and nothing is stored. Once the file is parsed the session closes either way; a commit before any chunk arrived is a 400 that leaves it open for them.',
        params: SessionParams,
        response: { 200: ImportCommitSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => imports.commit(request.params.competitionId, request.params.sessionId, request.principal!),
  );

  app.delete(
    `${base}/:sessionId`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'cancelImportSession',
        summary: 'Cancel an import session: nothing is stored',
        description: 'Deletes the uploaded bytes. A commit still parsing the file stores nothing and answers 409.',
        params: SessionParams,
        response: { 200: ImportSessionSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => imports.cancel(request.params.competitionId, request.params.sessionId),
  );
};

const chunkRoute: FastifyPluginAsyncZod = async (app) => {
  const { imports } = app.services;
  const tags = ['tasks'];
  app.removeContentTypeParser(CHUNK_TYPE);
  app.addContentTypeParser(CHUNK_TYPE, streamedBody(LIMITS.bodyBytes));

  app.put(
    `${base}/:sessionId/chunks/:n`,
    {
      config: { access: 'admin', fileBody: [CHUNK_TYPE] },
      schema: {
        tags,
        operationId: 'putImportChunk',
        summary: 'Append the next chunk of the file',
        description:
          'Chunks go in order from 0. Resending the last chunk unchanged is a no-op (its answer was lost); any other number is a 409 naming the one expected.',
        params: ChunkParams,
        response: { 200: ImportSessionSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { competitionId, sessionId, n } = request.params;
      return imports.append(competitionId, sessionId, n, uploadPieces(request));
    },
  );
};
