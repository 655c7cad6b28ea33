// Finishing touches on the generated OpenAPI document, applied by @fastify/swagger's
// transformObject after the zod schemas are converted.
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { STATUS_CODES } from 'node:http';

/** The document is walked structurally: every node is `unknown` until these narrow it. */
type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
/** The object at `x`, or a fresh empty one (reads find nothing, writes go nowhere) when it is not one. */
const obj = (x: unknown): Json => (isObj(x) ? x : {});
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
/** `x[k1][k2]…`, or undefined where a step is not an object. */
const at = (x: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((node, k) => obj(node)[k], x);

/** Reads whose 200 body is text, not JSON: generated clients must not parse them as JSON. */
const TEXT_RESPONSES: Record<string, string> = {
  '/metrics': 'text/plain',
  '/v1/competitions/{competitionId}/events': 'text/event-stream',
  '/v1/admin/backup': 'application/vnd.sqlite3',
  '/v1/competitions/{competitionId}/snapshots/{seq}/input': 'application/x-ndjson',
};

/** Streamed exports: one media type per format (src/services/exports.ts). */
const text = (description: string) => ({ schema: { type: 'string', description } });
const EXPORT_RESPONSES: Record<string, Json> = {
  '/v1/competitions/{competitionId}/runs/export': {
    'application/x-ndjson': text('format=ndjson: one JSON object a line.'),
    'text/csv': text('format=csv: RFC 4180, header row, CRLF line ends, UTF-8.'),
    'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary', description: 'format=parquet.' } },
  },
  '/v1/competitions/{competitionId}/tasks/export': {
    'application/x-ndjson': text('format=ndjson: one JSON object a line.'),
    'text/csv': text('format=csv: RFC 4180, header row, CRLF line ends, UTF-8.'),
  },
};

const PROBLEM = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } };

/**
 * Problems every route gives without declaring them: any /v1 operation a 400 (an unknown query
 * parameter, src/plugins/strictQuery.ts; a malformed path identifier) and a 431 (a request line and
 * headers over 16 KiB, Node's parser: src/plugins/errors.ts clientErrorHandler), one with path
 * parameters a 414 (a parameter over 1,024 characters, the router's cap), any that takes a body a
 * 413, and any but a read a 415 (a body of a type it does not take, src/plugins/contentTypes.ts).
 * Responses come out in status order.
 */
function addCommonProblems(path: string, method: string, op: Json): void {
  const responses = obj(op.responses);
  const add = (status: string) => void (responses[status] ??= structuredClone(PROBLEM));
  if (path.startsWith('/v1/')) {
    add('400');
    add('431');
  }
  if (path.includes('{')) add('414');
  if (at(op, 'requestBody', 'content', 'application/json') !== undefined) add('413');
  if (method !== 'get' && method !== 'head') add('415');
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/**
 * The headers a refusal to wait carries (docs/API.md, "Limits at the door"): every 503, 429 and
 * 408 says when to try again, and a 429 of the rate limits how the window stands.
 */
function addRetryHeaders(op: Json): void {
  const integer = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
  for (const [status, response] of Object.entries(obj(op.responses))) {
    if (!isObj(response) || !['408', '429', '503'].includes(status)) continue;
    response.headers = {
      'Retry-After': integer('Seconds to wait before sending the request again.'),
      ...(status === '429'
        ? {
            'RateLimit-Limit': integer("Requests a window takes, for this client's kind (a rate limit's 429)."),
            'RateLimit-Remaining': integer('Requests left in the window.'),
            'RateLimit-Reset': integer('Seconds until the window starts again.'),
          }
        : {}),
    };
  }
}

/** Marks a conditional read in the per-route transform, for `addConditional`; not in the document. */
export const CONDITIONAL = 'x-conditional';

/**
 * A conditional read (src/http/representation.ts: a GET route that sends a kept body) takes
 * If-None-Match, answers 304, and names its body's ETag.
 */
function addConditional(op: Json): void {
  if (op[CONDITIONAL] !== true) return;
  delete op[CONDITIONAL];
  op.parameters = [
    ...arr(op.parameters),
    {
      in: 'header',
      name: 'If-None-Match',
      required: false,
      schema: { type: 'string' },
      description: 'ETags of bodies the client holds: a 304 with no body when one is current.',
    },
  ];
  const responses = obj(op.responses);
  const ok = obj(responses['200']);
  ok.headers = {
    ETag: {
      description:
        'ETag of this body: strong, with `-br` or `-gzip` appended when sent compressed; for a snapshot input, weak ' +
        '(`W/"<inputDigest>"`), one tag for every coding.',
      schema: { type: 'string' },
    },
  };
  responses['304'] = { description: 'Not Modified' };
}

/** Errors are problem+json; every response gets a real description. */
function describeResponses(op: unknown): void {
  for (const [status, response] of Object.entries(obj(obj(op).responses))) {
    if (!isObj(response)) continue;
    response.description = STATUS_CODES[Number(status)] ?? 'Response';
    const json = at(response, 'content', 'application/json');
    if (at(json, 'schema', '$ref') === '#/components/schemas/Problem') {
      response.content = { 'application/problem+json': json };
    }
  }
}

/** Drops component schemas that nothing references (each zod schema yields input and output forms). */
function pruneSchemas(doc: Json): void {
  const schemas = obj(at(doc, 'components', 'schemas'));
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        const name = v.slice('#/components/schemas/'.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(v);
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * A `oneOf` whose every branch is a named object fixing the same property with `const` (a zod
 * discriminated union) gets an OpenAPI `discriminator`, so generators emit a tagged union.
 */
function addDiscriminators(doc: Json): void {
  const schemas = obj(at(doc, 'components', 'schemas'));
  for (const schema of Object.values(schemas)) {
    if (!isObj(schema)) continue;
    const refs = arr(schema.oneOf).map((b) => obj(b).$ref);
    if (refs.length < 2 || !refs.every((r): r is string => typeof r === 'string')) continue;
    const branches = refs.map((r) => schemas[r.slice('#/components/schemas/'.length)]);
    const first = obj(at(branches[0], 'properties'));
    const key = Object.keys(first).find((k) =>
      branches.every((b) => at(b, 'properties', k, 'const') !== undefined && arr(obj(b).required).includes(k)),
    );
    if (!key) continue;
    schema.discriminator = {
      propertyName: key,
      mapping: Object.fromEntries(branches.map((b, i) => [String(at(b, 'properties', key, 'const')), refs[i]])),
    };
  }
}

/**
 * A property that must never be sent (zod `never`, `not: {}`) is left out of the document: with
 * `additionalProperties: false` it is refused all the same, and generators type it as absent
 * rather than as `unknown`.
 */
function dropForbiddenProperties(doc: Json): void {
  for (const schema of Object.values(obj(at(doc, 'components', 'schemas')))) {
    const properties = obj(obj(schema).properties);
    for (const [name, prop] of Object.entries(properties)) {
      const not = obj(prop).not;
      if (isObj(not) && Object.keys(not).length === 0) delete properties[name];
    }
  }
}

const NDJSON = { 'application/x-ndjson': { schema: { type: 'string', description: 'One JSON object a line.' } } };

/**
 * The bodies of the routes that take a file (`config.fileBody`), which zod does not describe: each
 * type the route accepts, so a generated client can send it (test/http/openapi.test.ts).
 */
const FILE_BODIES: Record<string, { description: string; content: Record<string, unknown> }> = {
  importQnaTasks: {
    description: 'SWE-Atlas-QnA-AA rows: one UTF-8 string column per field, `rubric` a JSON array as a string.',
    content: { 'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } }, ...NDJSON },
  },
  putImportChunk: {
    description: 'The next bytes of the file, as they are: the chunks in order make the file.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
  scoreDocument: {
    description: 'An input document, as GET …/snapshots/{seq}/input sends it.',
    content: NDJSON,
  },
};

/**
 * A property an `allOf: [{anyOf}]` branch requires (src/schemas/runs.ts: `resolved` or
 * `rubricVotes`) is typed there as the object types it: a branch's bare `type: array` would make
 * generators type the votes as `any[]` where the branch applies.
 */
function typeBranchProperties(doc: Json): void {
  for (const schema of Object.values(obj(at(doc, 'components', 'schemas')))) {
    const properties = obj(obj(schema).properties);
    for (const branch of arr(obj(schema).allOf).flatMap((part) => arr(obj(part).anyOf))) {
      const own = obj(obj(branch).properties);
      for (const name of Object.keys(own)) {
        if (isObj(properties[name])) own[name] = { ...properties[name], description: obj(own[name]).description };
      }
    }
  }
}

/**
 * A `const` (zod `literal`) also gets the one-value `enum` that means the same: OpenAPI 3.0
 * generators (openapi-typescript-codegen) read no `const` and would type a run's `kind` as any
 * string, so a run could not be told apart by it.
 */
function enumBesideConst(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(enumBesideConst);
  if (!isObj(node)) return;
  if ('const' in node && !('enum' in node)) node.enum = [node.const];
  Object.values(node).forEach(enumBesideConst);
}

export function transformObject(
  input: Parameters<typeof jsonSchemaTransformObject>[0],
): ReturnType<typeof jsonSchemaTransformObject> {
  const result = jsonSchemaTransformObject(input);
  const doc = obj(result);
  for (const [path, methods] of Object.entries(obj(doc.paths))) {
    for (const [method, op] of Object.entries(obj(methods))) {
      if (!isObj(op)) continue;
      const fileBody = FILE_BODIES[String(op.operationId)];
      if (fileBody) op.requestBody = { required: true, ...fileBody };
      addCommonProblems(path, method, op);
      addRetryHeaders(op);
      describeResponses(op);
      addConditional(op);
    }
  }
  for (const [path, type] of Object.entries(TEXT_RESPONSES)) {
    const ok = at(doc, 'paths', path, 'get', 'responses', '200');
    if (!isObj(ok)) continue;
    const schema = at(ok, 'content', 'application/json', 'schema') ?? { type: 'string' };
    ok.content = { [type]: { schema: type.startsWith('text/') ? schema : { ...obj(schema), format: 'binary' } } };
  }
  for (const [path, content] of Object.entries(EXPORT_RESPONSES)) {
    const ok = at(doc, 'paths', path, 'get', 'responses', '200');
    if (isObj(ok)) ok.content = content;
  }
  pruneSchemas(doc);
  addDiscriminators(doc);
  dropForbiddenProperties(doc);
  typeBranchProperties(doc);
  enumBesideConst([doc.components, doc.paths]);
  return result;
}
