// Request body types. The task import takes files; everything else is JSON only: a file or text
// sent to a JSON route is a 415 naming what the route takes, not a body of the wrong type.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, unsupported } from '../errors.js';
import { hasLoneSurrogate, LONE_SURROGATE_MESSAGE, toWellFormed } from '../unicode.js';

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

const takes = (request: FastifyRequest, type: string) => acceptedTypes(request).includes(type);
const notTaken = (request: FastifyRequest, type: string) =>
  unsupported(`${type} is not taken here; this route accepts ${acceptedTypes(request).join(' or ')}`);

/** The path of the first string or key in a parsed JSON value that is not well-formed UTF-16, if any. */
function illFormed(value: unknown, path: string): string | null {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = illFormed(value[i], `${path}/${i}`);
      if (bad) return bad;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    if (hasLoneSurrogate(key)) return `${path}/${toWellFormed(key)}`;
    const bad = illFormed(v, `${path}/${key}`);
    if (bad) return bad;
  }
  return null;
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
      // Fastify's JSON parser takes bytes as well as text; it answers through `done`, returning nothing.
      // Only an escape (`\ud800`) can carry a lone surrogate: raw bytes that are not UTF-8 decode
      // to U+FFFD. Bodies without a surrogate escape (`\uD800` to `\uDFFF`, either case; nearly
      // all, including those with other escapes, such as Python's ensure_ascii) are not walked.
      const bytes = body as Buffer;
      const checked: typeof done =
        bytes.includes('\\ud') || bytes.includes('\\uD')
          ? (err, value) => {
              const bad = err ? null : illFormed(value, 'body');
              done(
                bad
                  ? badRequest(`${bad} is not well-formed Unicode text`, [
                      { path: bad, message: LONE_SURROGATE_MESSAGE },
                    ])
                  : err,
                bad ? undefined : value,
              );
            }
          : done;
      const parse = () => void json(req, body as unknown as string, checked);
      if (!req.checkSignedBody) return parse();
      req.checkSignedBody(body as Buffer).then(parse, (err: Error) => done(err, undefined));
    });
    for (const type of BINARY_TYPES) {
      app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
        if (!takes(req, type)) return done(notTaken(req, type), undefined);
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
