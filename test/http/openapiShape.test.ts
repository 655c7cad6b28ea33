// The OpenAPI document states what generators need (issue 14): runs as a union discriminated by
// `kind`, the resolved/rubricVotes rule in the schema, text responses typed as text, no
// `servers` (the document's origin), one pattern per string, and the package's version.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Json } from '../support/json.js';

const doc: Json = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const schemas: Json = doc.components.schemas;

describe('the committed OpenAPI document', () => {
  it('types a run as a union discriminated by kind', () => {
    const run = schemas.RunResultInput;
    expect(run.oneOf).toEqual([
      { $ref: '#/components/schemas/BaselineRunInput' },
      { $ref: '#/components/schemas/MinerRunInput' },
    ]);
    expect(run.discriminator).toEqual({
      propertyName: 'kind',
      mapping: {
        baseline: '#/components/schemas/BaselineRunInput',
        miner: '#/components/schemas/MinerRunInput',
      },
    });
    expect(schemas.MinerRunInput.required).toEqual(expect.arrayContaining(['kind', 'minerHotkey']));
    // The one-value enum beside const is what OpenAPI 3.0 generators (openapi-typescript-codegen) read.
    expect(schemas.MinerRunInput.properties.kind).toMatchObject({ const: 'miner', enum: ['miner'] });
    expect(schemas.BaselineRunInput.required).not.toContain('minerHotkey');
    expect(schemas.BaselineRunInput.properties).not.toHaveProperty('minerHotkey');
    expect(schemas.BaselineRunInput.additionalProperties).toBe(false);
  });

  it('states "resolved unless rubricVotes" as an anyOf of required lists on both kinds', () => {
    for (const name of ['BaselineRunInput', 'MinerRunInput']) {
      const anyOf = schemas[name].allOf[0].anyOf as Json[];
      expect(anyOf.map((b) => b.required)).toEqual([['resolved'], ['rubricVotes']]);
    }
  });

  it('gives every array its items, in the anyOf branches too', () => {
    // A bare `type: array` is `any[]` to openapi-typescript-codegen and swagger-typescript-api.
    const bare: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as Json;
      if (o.type === 'array' && !('items' in o) && !('prefixItems' in o)) bare.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}/${k}`);
    };
    walk(doc, '');
    expect(bare).toEqual([]);
  });

  it('types /metrics as text/plain and events as text/event-stream', () => {
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
    expect(Object.keys(doc.paths['/v1/competitions/{competitionId}/events'].get.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
  });

  it('names no server, so /docs and every generator call the origin they are given, and the package version', () => {
    // `servers: [{url: '/'}]` makes swagger-typescript-api and openapi-typescript-codegen call `//v1/…`.
    expect(doc).not.toHaveProperty('servers');
    expect(doc.info.version).toBe(pkg.version);
    expect(pkg.version).toBe('1.2.0');
  });

  it('gives every string at most one pattern, never an allOf of patterns', () => {
    // openapi-typescript-codegen writes an allOf of patterns as an empty type (`runId: ;`).
    const found: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as Json;
      if (Array.isArray(o.allOf) && o.allOf.some((b: Json) => 'pattern' in b)) found.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, `${where}/${k}`);
    };
    walk(doc, '');
    expect(found).toEqual([]);
    const runId = new RegExp(schemas.MinerRunInput.properties.runId.pattern);
    const taskId = new RegExp(schemas.TaskSpecInput.properties.id.pattern);
    expect(['r-1', 'exports', 'imports'].map((s) => runId.test(s))).toEqual([true, true, true]);
    expect(['export', '.', '..', 'a/b'].map((s) => runId.test(s))).toEqual([false, false, false, false]);
    expect(['export', 'imports', '..'].map((s) => taskId.test(s))).toEqual([false, false, false]);
    const hotkey = new RegExp(schemas.MinerRunInput.properties.minerHotkey.pattern);
    expect(['baseline', 'Baseline', 'baseline2', '..'].map((s) => hotkey.test(s))).toEqual([false, true, true, false]);
  });
});
