// The OpenAPI document states what generators need (issue 14): runs as a union discriminated by
// `kind`, the resolved/rubricVotes rule in the schema, text responses typed as text, a relative
// server and the package's version.
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

  it('types /metrics as text/plain and events as text/event-stream', () => {
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
    expect(Object.keys(doc.paths['/v1/competitions/{competitionId}/events'].get.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
  });

  it('has a relative server, so /docs calls the server that served it, and the package version', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.info.version).toBe(pkg.version);
    expect(pkg.version).toBe('1.1.0');
  });
});
