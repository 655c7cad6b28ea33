// Request body types. The task import takes files; everything else is JSON only: a file or text
// sent to a JSON route is a 415, not a body of the wrong type.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { unsupported } from '../errors.js';

export const FILE_TYPES = ['application/vnd.apache.parquet', 'application/x-ndjson'] as const;

/** Routes that take a file body declare it: `config: { fileBody: true }`. */
declare module 'fastify' {
  interface FastifyContextConfig {
    fileBody?: boolean;
  }
}

export const contentTypesPlugin = fp(async (app: FastifyInstance) => {
  app.removeContentTypeParser('text/plain');
  for (const type of FILE_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
      if (req.routeOptions.config.fileBody) done(null, body);
      else done(unsupported(`${type} is taken only by the task import; send application/json`), undefined);
    });
  }
}, { name: 'content-types' });
