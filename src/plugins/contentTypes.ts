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
  interface FastifyRequest {
    /** The body's bytes as received, for signature checks (Epistula signs the exact bytes). */
    rawBody?: Buffer;
  }
}

export const contentTypesPlugin = fp(async (app: FastifyInstance) => {
  app.removeContentTypeParser('text/plain');
  // JSON as Fastify parses it (prototype poisoning refused), with the bytes kept beside it.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    req.rawBody = bytes;
    // Fastify's JSON parser takes bytes as well as text.
    json(req, bytes as unknown as string, done);
  });
  for (const type of FILE_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
      req.rawBody = body as Buffer;
      if (req.routeOptions.config.fileBody) done(null, body);
      else done(unsupported(`${type} is taken only by the task import; send application/json`), undefined);
    });
  }
}, { name: 'content-types' });
