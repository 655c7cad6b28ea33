// Request body types. The task import takes files; everything else is JSON only: a file or text
// sent to a JSON route is a 415 naming what the route takes, not a body of the wrong type.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, unsupported } from '../errors.js';
import { mayHoldBadText, printable, textProblem } from '../unicode.js';

export const FILE_TYPES = ['application/vnd.apache.parquet', 'application/x-ndjson'] as const;
/** Every binary body type a route may declare: the task files, and import chunks. */
const BINARY_TYPES = [...FILE_TYPES, 'application/octet-stream'];

/** Routes that take a file body declare it: `config: { fileBody: true }`, or the types they take. */
declare module 'fastify' {
  interface FastifyContextConfig {
    fileBody?: boolean | readonly string[];
  }
}

/** The body types a route takes, for a 415 that says what to send instead. */
export function acceptedTypes(request: FastifyRequest): readonly string[] {
  const declared = request.routeOptions.config?.fileBody;
  if (declared === true) return FILE_TYPES;
  if (declared) return declared;
  return ['application/json'];
}

/**
 * A body sent with a Content-Encoding (gzip, br, …): taken as sent, it would be parsed as the
 * compressed bytes, or a plain body would be taken under a coding it does not have. Bodies go
 * uncompressed (a signature covers their exact bytes): a 415 naming the header (RFC 9110 15.5.16).
 */
export function codingRefused(request: FastifyRequest): Error | null {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || coding.trim().toLowerCase() === 'identity') return null;
  return unsupported(`Content-Encoding ${coding} is not taken: send the body uncompressed, without the header`, [
    { path: 'headers/content-encoding', message: 'only identity (no coding) is taken' },
  ]);
}

const takes = (request: FastifyRequest, type: string) => acceptedTypes(request).includes(type);
const notTaken = (request: FastifyRequest, type: string) =>
  unsupported(`${type} is not taken here; this route accepts ${acceptedTypes(request).join(' or ')}`);

/** The first string or key in a parsed JSON value that stored text cannot hold (src/unicode.ts): where, and why. */
function badText(value: unknown, path: string): { path: string; message: string } | null {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message ? { path, message } : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = badText(value[i], `${path}/${i}`);
      if (bad) return bad;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    const message = textProblem(key);
    if (message) return { path: `${path}/${printable(key)}`, message: `the key ${message}` };
    const bad = badText(v, `${path}/${key}`);
    if (bad) return bad;
  }
  return null;
}

/**
 * Valid JSON that Fastify's parser refused: a `__proto__` key, or `constructor.prototype` (prototype
 * poisoning). Said as such, where Fastify says only "not valid JSON". Runs on a refusal only.
 */
function protoRefusal(body: Buffer): Error | null {
  try {
    JSON.parse(body.toString('utf8'));
  } catch {
    return null; // not valid JSON indeed
  }
  return badRequest('a key named __proto__ (or constructor.prototype) is not taken in a JSON body: rename it', [
    { path: 'body', message: 'holds a __proto__ or constructor.prototype key' },
  ]);
}

export const contentTypesPlugin = fp(
  async (app: FastifyInstance) => {
    app.removeContentTypeParser('text/plain');
    // JSON as Fastify parses it (prototype poisoning refused). A signed request's signature covers
    // the exact bytes: it is checked on them first (src/plugins/auth.ts), and a refusal is the answer.
    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      // A file route (an import, a chunk, an input document) takes no JSON: a 415, not an empty file.
      if (!takes(req, 'application/json')) return done(notTaken(req, 'application/json'), undefined);
      const refused = codingRefused(req);
      if (refused) return done(refused, undefined);
      // Fastify's JSON parser takes bytes as well as text; it answers through `done`, returning nothing.
      // Strings stored text cannot hold (a NUL, a lone surrogate; src/unicode.ts) are a 400 naming
      // the field. Only bodies with such an escape are walked.
      const checked: typeof done = (err, value) => {
        if (err) return done(protoRefusal(body as Buffer) ?? err, undefined);
        const bad = mayHoldBadText(body as Buffer) ? badText(value, 'body') : null;
        if (!bad) return done(null, value);
        done(badRequest(`${bad.path} ${bad.message}`, [bad]), undefined);
      };
      const parse = () => void json(req, body as unknown as string, checked);
      if (!req.checkSignedBody) return parse();
      req.checkSignedBody(body as Buffer).then(parse, (err: Error) => done(err, undefined));
    });
    for (const type of BINARY_TYPES) {
      app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
        if (!takes(req, type)) return done(notTaken(req, type), undefined);
        const refused = codingRefused(req);
        if (refused) return done(refused, undefined);
        if (!req.checkSignedBody) return done(null, body);
        req.checkSignedBody(body as Buffer).then(
          () => done(null, body),
          (err: Error) => done(err, undefined),
        );
      });
    }
  },
  { name: 'content-types' },
);
