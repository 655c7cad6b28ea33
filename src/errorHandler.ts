// The one error handler: every error leaves as RFC 9457 problem+json. A 5xx never carries
// internals; its cause goes to the log only.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { Problem } from './errors.js';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  409: 'Conflict',
  413: 'Content too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
};

function send(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(problem.status).type('application/problem+json').send(problem.toBody());
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof Problem) {
    if (error.status === 503) reply.header('retry-after', '5');
    return send(reply, error);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const errors = error.validation.flatMap((v) => {
      const path = `${where}${v.instancePath}`.replace(/\/$/, '');
      const keys = v.keyword === 'unrecognized_keys' ? ((v.params as { keys?: string[] }).keys ?? []) : [];
      // Name each unknown field where it is, not only the object holding it.
      if (keys.length > 0) return keys.map((k) => ({ path: `${path}/${k}`, message: 'unknown field' }));
      return [{ path, message: v.message ?? 'invalid' }];
    });
    const detail = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ');
    return send(reply, new Problem(400, 'validation', 'Invalid request', detail, errors));
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Fastify's own client errors: invalid JSON, body too large, wrong content type.
    const slug = status === 413 ? 'too-large' : status === 415 ? 'unsupported-media-type' : 'bad-request';
    return send(reply, new Problem(status, slug, TITLES[status] ?? 'Client error', error.message));
  }
  request.log.error({ err: error }, 'request failed');
  return send(reply, new Problem(500, 'internal', 'Internal server error', 'the server could not complete the request; it is logged'));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return send(reply, new Problem(404, 'not-found', 'Not found', `no route ${request.method} ${request.url.split('?')[0]}`));
}
