// The one error handler: every error leaves as RFC 9457 problem+json. Domain errors (src/errors.ts)
// are mapped to their status here and nowhere else; a 5xx never carries internals, its cause goes
// to the log only.
import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  DomainError,
  LimitError,
  MethodNotAllowed,
  PROBLEM_TYPE_PREFIX,
  ServiceUnavailable,
  type ErrorField,
  type ErrorKind,
} from '../errors.js';
import { noteRefusal } from './refusals.js';
import { LIMITS } from '../schemas/common.js';
import { acceptedTypes } from './contentTypes.js';
import { lingerAfterAnswer } from './lingeringClose.js';
import { routeMiss } from './routeMiss.js';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Content too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  417: 'Expectation failed',
  422: 'Unprocessable content',
  429: 'Too many requests',
  426: 'Upgrade required',
  431: 'Request header fields too large',
  500: 'Internal server error',
  501: 'Not implemented',
  503: 'Service unavailable',
};

const STATUS: Record<ErrorKind, { status: number; slug: string }> = {
  invalid: { status: 400, slug: 'validation' },
  unauthorized: { status: 401, slug: 'unauthorized' },
  forbidden: { status: 403, slug: 'forbidden' },
  not_found: { status: 404, slug: 'not-found' },
  method_not_allowed: { status: 405, slug: 'method-not-allowed' },
  timeout: { status: 408, slug: 'timeout' },
  conflict: { status: 409, slug: 'conflict' },
  too_large: { status: 413, slug: 'too-large' },
  unprocessable: { status: 422, slug: 'unprocessable' },
  unsupported: { status: 415, slug: 'unsupported-media-type' },
  too_many: { status: 429, slug: 'too-many-requests' },
  upgrade_required: { status: 426, slug: 'upgrade-required' },
  unavailable: { status: 503, slug: 'unavailable' },
};

export interface Problem {
  status: number;
  slug: string;
  detail: string;
  errors?: ErrorField[];
  /** Seconds for Retry-After; a 503 says 5 unless told. */
  retryAfter?: number;
  /** A 405's `Allow`: the methods the path takes (RFC 9110 15.5.6). */
  allow?: readonly string[];
}

export const problemType = (slug: string) => `${PROBLEM_TYPE_PREFIX}${slug}`;

/**
 * Fields a problem lists at most: a 10 kB batch of 5,000 broken runs named each of them, a 429 kB
 * answer; the first hundred say what is wrong, and `detail` how many there are in all.
 */
export const MAX_LISTED_ERRORS = 100;

export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  if (p.retryAfter !== undefined || p.status === 503) reply.header('retry-after', String(p.retryAfter ?? 5));
  // A 401 names the scheme that would be taken (RFC 9110 11.6.1); signed requests are told in `type`.
  if (p.status === 401) reply.header('www-authenticate', 'Bearer realm="swe-scoring"');
  if (p.allow) reply.header('allow', p.allow.join(', '));
  reply.header('x-content-type-options', 'nosniff');
  const body: Record<string, unknown> = {
    type: problemType(p.slug),
    title: TITLES[p.status] ?? 'Client error',
    status: p.status,
    detail: p.detail,
  };
  if (p.errors && p.errors.length > MAX_LISTED_ERRORS) {
    body.detail = `${p.detail} (${p.errors.length} problems in all; errors lists the first ${MAX_LISTED_ERRORS})`;
    body.errors = p.errors.slice(0, MAX_LISTED_ERRORS);
  } else if (p.errors) body.errors = p.errors;
  return reply.code(p.status).type('application/problem+json').send(body);
}

export function fromDomainError(e: DomainError): Problem {
  const { status, slug } = STATUS[e.kind];
  const retryAfter = e instanceof LimitError || e instanceof ServiceUnavailable ? e.retryAfter : undefined;
  const allow = e instanceof MethodNotAllowed ? e.allow : undefined;
  return { status, slug: e.reason ?? slug, detail: e.detail, errors: e.errors, retryAfter, allow };
}

/** zod says a missing field is of the wrong type ("expected string, received undefined"): say it is required. */
function missing(message: string | undefined): string | undefined {
  const m = message && /^Invalid input: expected (\w+), received undefined$/.exec(message);
  return m ? `required (${m[1]})` : undefined;
}

function validationProblem(
  error: FastifyError & { validation: { instancePath: string; keyword: string; params: unknown; message?: string }[] },
): Problem {
  const where = error.validationContext ?? 'body';
  const errors = error.validation.flatMap((v) => {
    const path = `${where}${v.instancePath}`.replace(/\/$/, '');
    const keys = v.keyword === 'unrecognized_keys' ? ((v.params as { keys?: string[] }).keys ?? []) : [];
    // Name each unknown field where it is, not only the object holding it.
    if (keys.length > 0) return keys.map((k) => ({ path: `${path}/${k}`, message: 'unknown field' }));
    return [{ path, message: missing(v.message) ?? v.message ?? 'invalid' }];
  });
  const detail = errors
    .slice(0, 5)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  return { status: 400, slug: 'validation', detail, errors };
}

const MIB = 1024 * 1024;

/** A 413 states the limit, and where bigger files go. */
function tooLarge(): string {
  return (
    `the request body is too large: the limit is ${LIMITS.bodyBytes} bytes (${LIMITS.bodyBytes / MIB} MiB). ` +
    'Split run batches; send bigger task files through an import session (`swe-scoring import --url`).'
  );
}

/** A 415 names what was sent and lists what the route takes. */
function unsupportedType(request: FastifyRequest): string {
  const sent = request.headers['content-type'];
  const what = sent
    ? `content type ${sent.split(';')[0]} is not accepted here`
    : 'the request has a body but no Content-Type header';
  return `unsupported media type: ${what}; send ${acceptedTypes(request).join(' or ')}`;
}

export function errorHandler(
  error: FastifyError | DomainError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  // A stream that failed before its first byte (an export when the database goes away) leaves the
  // coding it was to be sent in: the problem is coded (or not) anew, never sent plain under it.
  reply.removeHeader('content-encoding');
  if (error instanceof DomainError) {
    // A 503's cause goes to the log, never to the client.
    noteRefusal(error, request);
    return sendProblem(reply, fromDomainError(error));
  }
  const status = error.statusCode ?? 500;
  if (hasZodFastifySchemaValidationErrors(error)) return sendProblem(reply, validationProblem(error));
  if (status === 413) {
    // The rest of the body is not read: the connection closes after the answer, or a client that
    // stopped sending would wait on it forever, and one that did not would be read to the end.
    reply.header('connection', 'close');
    return sendProblem(reply, { status, slug: 'too-large', detail: tooLarge() });
  }
  if (status === 415)
    return sendProblem(reply, { status, slug: 'unsupported-media-type', detail: unsupportedType(request) });
  // The router's cap on a path parameter: said as such, without echoing the whole path back.
  if (status === 414)
    return sendProblem(reply, {
      status,
      slug: 'uri-too-long',
      detail: 'a path parameter is longer than 1,024 characters: no identifier here is so long',
    });
  if (status >= 400 && status < 500) {
    // Fastify's other client errors: invalid JSON, a broken percent-escape.
    return sendProblem(reply, { status, slug: 'bad-request', detail: error.message });
  }
  request.log.error({ err: error }, 'request failed');
  return sendProblem(reply, {
    status: 500,
    slug: 'internal',
    detail: 'the server could not complete the request; it is logged',
  });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KiB, a malformed
 * request line or header, a method it does not know, a request that did not arrive in time) leave
 * as problem+json too, on a connection that then closes: the parser cannot tell where the next
 * request would start. An unknown method is a 501, which RFC 9110 9.1 asks for, not a 400.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return; // the client is gone: nobody to answer
  if (err.code === 'HPE_INVALID_METHOD') return notImplemented(null, socket);
  const [status, slug, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'timeout', 'the request did not arrive in time; send it again']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'headers-too-large',
            'the request line and headers exceed 16 KiB; a long query (hotkeys, a cursor) must be shorter',
          ]
        : [400, 'bad-request', `the request is not valid HTTP/1.1 (${err.code ?? 'unparsable'})`];
  refuseOnSocket(socket, status, slug, detail);
}

/**
 * A method the server does not implement, answered 501 on the socket: one the parser does not know,
 * and CONNECT, which Node hands to the HTTP server's 'connect' listener, outside the router (without
 * one it closes the connection unanswered). Installed as that listener.
 */
export function notImplemented(_request: IncomingMessage | null, socket: Socket): void {
  const detail = 'the request method is not implemented here: the API takes GET, HEAD, POST, PUT and DELETE';
  refuseOnSocket(socket, 501, 'not-implemented', detail);
}

function refuseOnSocket(socket: Socket, status: number, slug: string, detail: string): void {
  const body = JSON.stringify({ type: problemType(slug), title: TITLES[status], status, detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * A request whose `Expect` header asks for anything but `100-continue`, the only expectation HTTP/1.1
 * defines (RFC 9110 10.1.1): Node answers it before any route, with a bare 417. This answers the same
 * status as problem+json naming the header, and closes the connection lingering (./lingeringClose.ts),
 * since the request's body (if any) is not read. Installed as the HTTP server's `checkExpectation` listener.
 */
export function expectationHandler(req: IncomingMessage, res: ServerResponse): void {
  const sent = String(req.headers.expect ?? '').slice(0, 100);
  const body = JSON.stringify({
    type: problemType('expectation-failed'),
    title: TITLES[417],
    status: 417,
    detail: `the Expect header asks for "${sent}"; only 100-continue can be met, or send no Expect header`,
    errors: [{ path: 'headers/expect', message: 'only 100-continue is supported' }],
  });
  res.writeHead(417, {
    'content-type': 'application/problem+json',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  lingerAfterAnswer(req);
  res.end(body);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return errorHandler(routeMiss(request), request, reply);
}

/** Installs the handlers on the root instance, so every route and router error goes through them. */
export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('refusal', null);
    app.setErrorHandler(errorHandler);
    app.setNotFoundHandler(notFoundHandler);
  },
  { name: 'errors' },
);
