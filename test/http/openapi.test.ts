// The OpenAPI document is good enough for generated clients: every operation has an id, a
// summary and documented errors; every field, parameter and named schema has a description.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await testApp();
  doc = t.app.swagger();
});
afterAll(() => t.close());

/** Paths to schema properties without a description, following the document's structure. */
function undescribed(node: unknown, where: string, out: string[]): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => undescribed(n, `${where}/${i}`, out));
  else if (node && typeof node === 'object') {
    const o = node as Json;
    for (const [name, prop] of Object.entries<Json>(o.properties ?? {})) {
      // A $ref is described by the schema it names.
      if (!prop.description && !prop.$ref) out.push(`${where}/properties/${name}`);
    }
    for (const [k, v] of Object.entries(o)) if (k !== 'properties') undescribed(v, `${where}/${k}`, out);
    for (const [name, prop] of Object.entries<Json>(o.properties ?? {}))
      undescribed(prop, `${where}/properties/${name}`, out);
  }
  return out;
}

it('the committed document is the one the app generates', () => {
  const committed = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
  expect(JSON.parse(committed)).toEqual(JSON.parse(JSON.stringify(doc)));
});

it('is OpenAPI 3.1 with both bearer schemes declared (Epistula signing described, not a scheme generators would fill)', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'validatorKey']);
  expect(doc.components.securitySchemes.validatorKey.description).toContain('Epistula');
});

it('every operation has an operationId, a summary, a tag, and problem+json errors', () => {
  const ids = new Set<string>();
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(op.tags?.length, `${method} ${path}`).toBe(1);
      for (const [status, res] of Object.entries<Json>(op.responses)) {
        if (Number(status) >= 400 && status !== '503')
          expect(Object.keys(res.content), `${method} ${path} ${status}`).toEqual(['application/problem+json']);
      }
    }
  }
  expect(ids.size).toBeGreaterThanOrEqual(20);
});

it('every operation declares the problems any of its kind gives: 400 (/v1), 414 (path parameters), 413 (a body), 415 (not a read)', async () => {
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      const at = `${method} ${path}`;
      if (path.startsWith('/v1/')) expect(op.responses, at).toHaveProperty('400');
      if (path.includes('{')) expect(op.responses, at).toHaveProperty('414');
      if (op.requestBody?.content?.['application/json']) expect(op.responses, at).toHaveProperty('413');
      if (method !== 'get') expect(op.responses, at).toHaveProperty('415');
    }
  }
  // As the server does: an unknown query parameter on a read that declares none,
  const unknown = await t.call({ method: 'GET', url: '/v1/identity?x=1' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors).toEqual([{ path: 'querystring/x', message: 'unknown field' }]);
  // a path parameter past the router's cap,
  const long = await t.call({ method: 'GET', url: `/v1/competitions/${'c'.repeat(1025)}` });
  expect(long.status).toBe(414);
  expect(long.headers['content-type']).toMatch(/^application\/problem\+json/);
  // text sent to a write that takes JSON,
  const text = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: { ...admin, 'content-type': 'text/plain' },
    payload: 'hello',
  });
  expect(text.status).toBe(415);
  // and any body sent to a deletion, which takes none (API.md 1.2).
  const deletion = await t.call({
    method: 'DELETE',
    url: '/v1/validators/v-1',
    headers: { ...admin, 'content-type': 'text/plain' },
    payload: 'hello',
  });
  expect(deletion.status).toBe(400);
});

it('every route that takes a file body declares it, and the server takes each type it declares', async () => {
  // The three routes with `config.fileBody` (the import, an import session's chunk, /v1/score):
  // zod does not describe their bodies, and a generated client sends only what is declared.
  const files: [string, string, string][] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      for (const type of Object.keys(op.requestBody?.content ?? {}))
        if (type !== 'application/json') files.push([op.operationId, method, path.replace(/\{[A-Za-z]+\}/g, 'x')]);
    }
  }
  expect([...new Set(files.map(([id]) => id))].sort()).toEqual(['importQnaTasks', 'putImportChunk', 'scoreDocument']);
  for (const [id, method, url] of files) {
    const op = Object.values<Json>(doc.paths)
      .flatMap((m) => Object.values<Json>(m))
      .find((o) => o.operationId === id);
    for (const type of Object.keys(op.requestBody.content)) {
      const res = await t.call({
        method: method.toUpperCase(),
        url,
        headers: { ...admin, 'content-type': type },
        payload: Buffer.from('x'),
      });
      expect(res.status, `${id} with ${type}`).not.toBe(415);
    }
  }
});

it('every named schema, parameter and field carries a description', () => {
  const missing = undescribed(doc.components.schemas, '#/components/schemas', []);
  for (const [name, schema] of Object.entries<Json>(doc.components.schemas))
    if (!schema.description) missing.push(`#/components/schemas/${name}`);
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      for (const p of op.parameters ?? []) if (!p.description) missing.push(`${method} ${path} parameter ${p.name}`);
      undescribed(op.requestBody, `${method} ${path} requestBody`, missing);
      undescribed(op.responses, `${method} ${path} responses`, missing);
    }
  }
  expect(missing).toEqual([]);
});

it('/docs draws no lock on a public read, while the document tells generators a token may be sent', async () => {
  const shown = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json<Json>();
  const leaderboard = '/v1/competitions/{competitionId}/leaderboard';
  expect(doc.paths[leaderboard].get.security).toEqual([{}, { validatorKey: [] }, { adminToken: [] }]);
  // Swagger UI hides the lock only for a lone empty requirement.
  expect(shown.paths[leaderboard].get.security).toEqual([{}]);
  // A write keeps its lock.
  expect(shown.paths['/v1/competitions/{competitionId}'].put.security).toEqual([{ adminToken: [] }]);
  for (const [path, methods] of Object.entries<Json>(shown.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      const declared = doc.paths[path][method].security as Json[] | undefined;
      const optional = declared?.some((r) => Object.keys(r).length === 0);
      expect(op.security, `${method} ${path}`).toEqual(optional ? [{}] : declared);
    }
  }
});
