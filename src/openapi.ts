// Finishing touches on the generated OpenAPI document, applied by @fastify/swagger's
// transformObject after the zod schemas are converted.
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { STATUS_CODES } from 'node:http';

type Json = Record<string, any>;

const IMPORT_PATH = '/v1/competitions/{competitionId}/tasks/import';

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

/** Errors are problem+json; every response gets a real description. */
function describeResponses(op: Json): void {
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    response.description = STATUS_CODES[Number(status)] ?? 'Response';
    const json = response.content?.['application/json'];
    if (json?.schema?.$ref === '#/components/schemas/Problem') {
      response.content = { 'application/problem+json': json };
    }
  }
}

/** Drops component schemas that nothing references (each zod schema yields input and output forms). */
function pruneSchemas(doc: Json): void {
  const schemas: Json = doc.components?.schemas ?? {};
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
  const schemas: Json = doc.components?.schemas ?? {};
  for (const schema of Object.values<Json>(schemas)) {
    const refs: string[] = (schema.oneOf ?? []).map((b: Json) => b.$ref);
    if (refs.length < 2 || refs.some((r) => typeof r !== 'string')) continue;
    const branches = refs.map((r) => schemas[r.slice('#/components/schemas/'.length)] as Json | undefined);
    const first = branches[0]?.properties ?? {};
    const key = Object.keys(first).find((k) => branches.every((b) => b?.properties?.[k]?.const !== undefined && b.required?.includes(k)));
    if (!key) continue;
    schema.discriminator = { propertyName: key, mapping: Object.fromEntries(branches.map((b, i) => [b!.properties[key].const, refs[i]])) };
  }
}

/**
 * A property that must never be sent (zod `never`, `not: {}`) is left out of the document: with
 * `additionalProperties: false` it is refused all the same, and generators type it as absent
 * rather than as `unknown`.
 */
function dropForbiddenProperties(doc: Json): void {
  for (const schema of Object.values<Json>(doc.components?.schemas ?? {})) {
    for (const [name, prop] of Object.entries<Json>(schema.properties ?? {})) {
      if (prop.not && Object.keys(prop.not).length === 0) delete schema.properties[name];
    }
  }
}

export function transformObject(input: Parameters<typeof jsonSchemaTransformObject>[0]): Json {
  const doc = jsonSchemaTransformObject(input) as Json;
  for (const methods of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(methods)) describeResponses(op);
  }
  const importOp = doc.paths?.[IMPORT_PATH]?.post;
  if (importOp) {
    importOp.requestBody = {
      required: true,
      description: 'SWE-Atlas-QnA-AA rows: one UTF-8 string column per field, `rubric` a JSON array as a string.',
      content: {
        'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
        'application/x-ndjson': { schema: { type: 'string', description: 'One JSON object a line.' } },
      },
    };
  }
  for (const [path, type] of Object.entries(TEXT_RESPONSES)) {
    const ok = doc.paths?.[path]?.get?.responses?.['200'];
    const schema = ok?.content?.['application/json']?.schema ?? { type: 'string' };
    if (ok) ok.content = { [type]: { schema: type.startsWith('text/') ? schema : { ...schema, format: 'binary' } } };
  }
  for (const [path, content] of Object.entries(EXPORT_RESPONSES)) {
    const ok = doc.paths?.[path]?.get?.responses?.['200'];
    if (ok) ok.content = content;
  }
  pruneSchemas(doc);
  addDiscriminators(doc);
  dropForbiddenProperties(doc);
  return doc;
}
