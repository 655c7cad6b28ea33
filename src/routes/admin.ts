// Operator routes: the online backup.
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problems } from '../schemas/common.js';

export const SQLITE_TYPE = 'application/vnd.sqlite3';

export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { backup } = app.services;

  app.get(
    '/admin/backup',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['operations'],
        operationId: 'getBackup',
        summary: 'Download a consistent backup of the database',
        description:
          "A SQLite file (`application/vnd.sqlite3`) copied with SQLite's backup API while the server keeps serving: " +
          'it holds every write acknowledged before the request and each batch whole or not at all. ' +
          'To restore: stop the server, put the file at `DATABASE_PATH` (removing its `-wal` and `-shm`), start it. ' +
          'A server on PostgreSQL (`DATABASE_URL`) answers 409: back it up with `pg_dump`.',
        response: { 200: z.string().describe('The SQLite database file.'), ...problems(401, 403, 409) },
      },
    },
    async (_request, reply) => {
      const file = await backup.toTempFile();
      const stream = createReadStream(file.path);
      stream.once('close', file.remove);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return (
        reply
          .type(SQLITE_TYPE)
          .header('content-length', file.bytes)
          .header('content-disposition', `attachment; filename="swe-scoring-${stamp}.db"`)
          // A stream is sent as it is, never through the response serializer; the type names the body's schema.
          .send(stream as unknown as string)
      );
    },
  );
};
