// What a request no route answered is told (the not-found handler's, and the body guard's before a
// body is read): a 404, a 405 with `Allow`, or the router's 414.
import { errorCodes, type FastifyError, type FastifyRequest } from 'fastify';
import { MethodNotAllowed, notFound, type DomainError } from '../errors.js';

/** The methods a route may take; a path's `Allow` lists those some route at it takes, in this order. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * What a request that matched no route is told: a 405 with `Allow` when routes serve its path with
 * other methods (RFC 9110 15.5.6), else a 404. A HEAD is answered as its GET, and carries the
 * Content-Length of GET's body (RFC 9110 8.6, 9.3.2): the detail is GET's. A path parameter over the
 * router's cap (`maxParamLength`, src/app.ts) is the 414 the router gives every other method there.
 *
 * A route of the request's own method that found nothing to send (a file server's missing file:
 * Swagger UI's /docs/static/*) hands its request here too: that is a 404, whatever other methods
 * the path takes (it was a 405 "it takes HEAD" for a GET of a missing file).
 */
export function routeMiss(request: FastifyRequest): DomainError | FastifyError {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const url = request.url.split('?')[0]!;
  const own = request.server.findRoute({ method: request.method, url });
  if (own !== null && own.searchParams !== undefined) return notFound(`nothing at ${method} ${url}`);
  const allow: string[] = [];
  for (const m of METHODS) {
    if (m === request.method) continue;
    const hit = request.server.findRoute({ method: m, url });
    if (hit === null) continue;
    // The router's own refusal of an over-long parameter, found for any method it has routes of, is
    // no route: it alone carries no query (every route's hit parses one, if only to {}).
    if (hit.searchParams === undefined) return new errorCodes.FST_ERR_MAX_PARAM_LENGTH(url);
    allow.push(m);
  }
  if (allow.length === 0) return notFound(`no route ${method} ${url}`);
  return new MethodNotAllowed(`${method} is not a method of ${url}; it takes ${allow.join(', ')}`, allow);
}
