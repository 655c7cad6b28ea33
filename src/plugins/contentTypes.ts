// Request body types. The task import takes files; everything else is JSON only: a file or text
// sent to a JSON route is a 415 naming what the route takes, not a body of the wrong type.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { errorCodes } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, unsupported } from '../errors.js';
import { jsonSyntaxProblem } from '../http/jsonSyntax.js';
import { keepJsonText } from '../http/jsonText.js';
import { gather, ownBytes, passingBytes } from '../http/bodyBytes.js';
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
function codingRefused(request: FastifyRequest): Error | null {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || coding.trim().toLowerCase() === 'identity') return null;
  return unsupported(`Content-Encoding ${coding} is not taken: send the body uncompressed, without the header`, [
    { path: 'headers/content-encoding', message: 'only identity (no coding) is taken' },
  ]);
}

/**
 * A JSON body declared in a charset other than UTF-8 (RFC 8259 8.1: JSON is UTF-8): read as UTF-8 it
 * would be stored changed, so a 415 naming the header. No charset, or utf-8 in any case, is taken.
 */
function charsetRefused(request: FastifyRequest): Error | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (charset === undefined || /^utf-?8$/i.test(charset)) return null;
  return unsupported(`charset ${charset} is not taken: send the JSON body as UTF-8 (charset=utf-8, or none)`, [
    { path: 'headers/content-type', message: 'only charset=utf-8 (or no charset) is taken' },
  ]);
}

/** Bytes no UTF-8 text holds: Fastify's parser would read them as U+FFFD, changing what is stored. */
const notUtf8 = () =>
  badRequest('the JSON body is not valid UTF-8: send UTF-8 text (RFC 8259)', [
    { path: 'body', message: 'holds bytes that are not UTF-8' },
  ]);

const takes = (request: FastifyRequest, type: string) => acceptedTypes(request).includes(type);
const notTaken = (request: FastifyRequest, type: string) =>
  unsupported(`${type} is not taken here; this route accepts ${acceptedTypes(request).join(' or ')}`);

/**
 * The 415 a body gets on its headers alone, before a byte of it is read (src/plugins/bodyGuard.ts
 * preParsing): a type the route does not take, a Content-Encoding, a JSON charset other than UTF-8.
 * Refused once read, a body of up to the limit was gathered for nothing, and a forged signature
 * beside it was never checked nor counted. A type no parser takes is Fastify's own 415, unread too.
 */
export function refusedOnHeaders(request: FastifyRequest): Error | null {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const json = type === 'application/json';
  if (!json && !BINARY_TYPES.includes(type)) return null;
  if (!takes(request, type)) return notTaken(request, type);
  return codingRefused(request) ?? (json ? charsetRefused(request) : null);
}

/**
 * How deep the checks below walk a parsed body. No request of this API nests past a dozen levels;
 * a deeper body is refused as such, and no walk recurses, so no depth overflows the stack.
 */
const MAX_DEPTH = 64;
const tooDeep = () =>
  badRequest(`the JSON body is nested deeper than ${MAX_DEPTH} levels; no request of this API nests so deep`, [
    { path: 'body', message: `nested deeper than ${MAX_DEPTH} levels` },
  ]);

/**
 * Each object of a parsed JSON value, and each string in it with its path, depth first, until
 * `visit` answers something; past MAX_DEPTH levels, `'deep'`.
 */
function walk<T>(root: unknown, visit: (value: unknown, path: string) => T | null): T | 'deep' | null {
  const stack: [value: unknown, path: string, depth: number][] = [[root, 'body', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    const seen = visit(value, path);
    if (seen !== null) return seen;
    if (typeof value !== 'object' || value === null) continue;
    if (depth === MAX_DEPTH) return 'deep';
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}/${entries[i]![0]}`, depth + 1]);
  }
  return null;
}

/** The first string or key in a parsed JSON value that stored text cannot hold (src/unicode.ts): where, and why. */
function badText(value: unknown): { path: string; message: string } | 'deep' | null {
  return walk(value, (v, path) => {
    if (typeof v === 'string') {
      const message = textProblem(v);
      return message ? { path, message } : null;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    for (const key of Object.keys(v)) {
      const message = textProblem(key);
      if (message) return { path: `${path}/${printable(key)}`, message: `the key ${message}` };
    }
    return null;
  });
}

/** What Fastify's parser refuses as prototype poisoning: an own `__proto__` key, or `constructor.prototype`. */
const poisoning = (v: unknown): true | null => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  if (Object.hasOwn(v, '__proto__')) return true;
  const c = (v as { constructor?: unknown }).constructor;
  return Object.hasOwn(v, 'constructor') && typeof c === 'object' && c !== null && Object.hasOwn(c, 'prototype')
    ? true
    : null;
};

/**
 * Key spellings a prototype-poisoning key may take in a JSON text: literally, or with any of its
 * letters escaped (`"\u005f_proto__"`). A text with no `\u` escape holds such a key only if it holds
 * `_proto_` or `uctor`, which a byte search finds in a fraction of the time of the whole keys (whose
 * leading `"` or `_` is everywhere in JSON; 0.06 and 0.12 ms against 0.3 ms each over a 600 kB run
 * batch, measured); then, or when the text has an escape, secure-json-parse's two patterns (Fastify's
 * parser) decide, and a match is looked for in the parsed value.
 */
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;
const mayPoison = (body: Buffer, text: string): boolean =>
  (body.includes('\\u') || body.includes('_proto_') || body.includes('uctor')) &&
  (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text));

const poisoned = () =>
  badRequest('a key named __proto__ (or constructor.prototype) is not taken in a JSON body: rename it', [
    { path: 'body', message: 'holds a __proto__ or constructor.prototype key' },
  ]);

/**
 * A JSON body's value, or the 400 that refuses it: empty (Fastify's own error), not JSON (where, and
 * what JSON takes: src/http/jsonSyntax.ts), prototype poisoning (said as such), or nested too deep to look through for
 * it. What Fastify's parser does, without two regular expressions run over every body: a run
 * batch of 600 kB is looked through by three short byte searches instead (`mayPoison`).
 */
function parseJson(body: Buffer): { value: unknown } | { refused: Error } {
  if (body.length === 0) return { refused: new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY() };
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Where, and what JSON takes: Fastify's own error ("Body is not valid JSON") said neither.
    const problem = jsonSyntaxProblem(text);
    return { refused: badRequest(`body is ${problem}`, [{ path: 'body', message: problem }]) };
  }
  if (typeof value !== 'object' || value === null) return { value };
  if (mayPoison(body, text)) {
    const found = walk(value, poisoning);
    if (found === 'deep') return { refused: tooDeep() };
    if (found !== null) return { refused: poisoned() };
  }
  // A run batch's votes are stored as the text they were sent in (src/services/votesText.ts).
  keepJsonText(value, text);
  return { value };
}

export const contentTypesPlugin = fp(
  async (app: FastifyInstance) => {
    app.removeContentTypeParser('text/plain');
    // JSON as Fastify parses it (prototype poisoning refused). A signed request's signature covers
    // the exact bytes: it is checked on them first (src/plugins/auth.ts), and a refusal is the answer.
    app.removeContentTypeParser('application/json');
    // A type the route does not take, a coding or a charset were refused before the body was read
    // (`refusedOnHeaders`).
    // Its bytes gathered as Fastify's `parseAs: 'buffer'` gathers them, into a buffer reused from
    // body to body where nothing holds them past the parse (src/http/bodyBytes.ts).
    app.addContentTypeParser('application/json', (req, payload, done) => {
      // Strings stored text cannot hold (a NUL, a lone surrogate; src/unicode.ts) are a 400 naming
      // the field. Only bodies with such an escape are walked. Nothing here keeps `bytes`.
      const parse = (bytes: Buffer) => {
        if (!isUtf8(bytes)) return done(notUtf8(), undefined);
        const parsed = parseJson(bytes);
        if ('refused' in parsed) return done(parsed.refused, undefined);
        const bad = mayHoldBadText(bytes) ? badText(parsed.value) : null;
        if (!bad) return done(null, parsed.value);
        done(bad === 'deep' ? tooDeep() : badRequest(`${bad.path} ${bad.message}`, [bad]), undefined);
      };
      gather(req, payload, (error, body) => {
        if (error || !body) return done(error, undefined);
        if (!req.checkSignedBody) return parse(passingBytes(body));
        const bytes = ownBytes(body);
        req.checkSignedBody(bytes).then(
          () => parse(bytes),
          (err: Error) => done(err, undefined),
        );
      });
    });
    for (const type of BINARY_TYPES) {
      app.addContentTypeParser(type, { parseAs: 'buffer' }, (req, body, done) => {
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
