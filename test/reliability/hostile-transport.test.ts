// Hostile transport on every write route: invalid JSON, wrong content types (415), prototype
// poisoning, broken percent-escapes, over-long path parameters, bodies over the size limit (413)
// and more items than a request may carry. Each gets a 4xx problem+json and changes nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { LIMITS } from '../../src/schemas/common.js';
import { COMPETITION } from './fixture.js';
import { hostileTarget, storm, validRun, type Attack, type Target } from './hostileKit.js';

const c = `/v1/competitions/${COMPETITION}`;
/** Every write route: method, path with a `{id}` slot for a path parameter, a valid body, whose token. */
const ROUTES: { method: Attack['method']; path: (id: string) => string; body?: unknown; validator?: boolean }[] = [
  { method: 'PUT', path: (id) => `/v1/competitions/${id}`, body: { name: 'x' } },
  {
    method: 'PUT',
    path: (id) => `/v1/competitions/${id}/tasks`,
    body: { tasks: [{ id: 'n-1', type: 'swebench_verified' }] },
  },
  { method: 'POST', path: (id) => `/v1/competitions/${id}/tasks/import` },
  { method: 'POST', path: () => '/v1/validators', body: { name: 'v' } },
  { method: 'DELETE', path: (id) => `/v1/validators/${id}` },
  { method: 'PUT', path: (id) => `${c}/miners/${id}`, body: { excluded: true } },
  { method: 'POST', path: (id) => `/v1/competitions/${id}/runs`, body: { runs: [validRun('n-1')] }, validator: true },
  { method: 'DELETE', path: (id) => `${c}/runs/${id}` },
];
const JSON_ROUTES = ROUTES.filter((r) => r.body !== undefined);
const PARAM_ROUTES = ROUTES.filter((r) => r.path('@') !== r.path('#'));
const route = (list: typeof ROUTES) => fc.constantFrom(...list);

let target: Target;
beforeAll(async () => {
  target = await hostileTarget();
});
afterAll(async () => {
  console.log(
    `[hostile-transport] malformed requests tried: ${target.count}, all 4xx problem+json, database unchanged`,
  );
  await target.t.close();
});

const attack = (
  r: (typeof ROUTES)[number],
  a: Omit<Attack, 'method' | 'url' | 'token'> & { url?: string },
): Attack => ({
  method: r.method,
  url: a.url ?? r.path(COMPETITION),
  token: r.validator ? target.validatorKey : undefined,
  ...a,
});

describe('hostile transport', () => {
  it('invalid JSON on every JSON route', () =>
    storm(
      target,
      fc
        .tuple(
          route(JSON_ROUTES),
          fc.constantFrom(
            '{',
            '{"name": NaN}',
            "{'name': 'x'}",
            '{"name": "x",}',
            '{"name": "x"} trailing',
            '// comment\n{}',
            '{"a": 1}{"b": 2}',
            '[1, 2',
            '"unterminated',
            '{"name": "a\u0001b"}',
            'nul',
            'tru',
            '{"runs": [Infinity]}',
            '{"tasks": [undefined]}',
            '{"excluded": True}',
            '\u0000',
          ),
        )
        .map(([r, text]) => attack(r, { name: 'invalid JSON', body: text, status: 400, mentions: [/json/] })),
      40,
    ));

  it('wrong content types on every JSON route (415)', () =>
    storm(
      target,
      fc
        .tuple(
          route(JSON_ROUTES),
          fc.constantFrom(
            'text/plain',
            'text/plain; charset=utf-8',
            'application/xml',
            'text/html',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/vnd.apache.parquet',
            'application/x-ndjson',
            'application/jsonx',
            'image/png',
            '',
          ),
        )
        .map(([r, contentType]) =>
          attack(r, {
            name: `sent as ${contentType || 'no content type'}`,
            body: JSON.stringify(r.body),
            contentType,
            status: 415,
            mentions: [/media type|application\/json/],
          }),
        ),
      40,
    ));

  it('prototype poisoning', () =>
    storm(
      target,
      fc
        .tuple(
          route(JSON_ROUTES),
          fc.constantFrom(
            '{"__proto__": {"admin": true}}',
            '{"constructor": {"prototype": {"admin": true}}}',
            '{"name": "x", "__proto__": null}',
          ),
        )
        .map(([r, text]) => attack(r, { name: 'prototype poisoning', body: text, status: 400, mentions: [/json/] })),
      12,
    ));

  it('broken percent-escapes and over-long path parameters', () =>
    storm(
      target,
      fc
        .tuple(
          route(PARAM_ROUTES),
          fc.oneof(
            fc
              .constantFrom('%E0%A4%A', '%', '%zz', 'a%', '%C0%AF', '%ED%A0%80')
              .map((id) => ({ id, status: 400, mention: /url/ })),
            fc.integer({ min: 1025, max: 5000 }).map((n) => ({ id: 'a'.repeat(n), status: 414, mention: /param/ })),
            fc.integer({ min: 129, max: 1024 }).map((n) => ({ id: 'b'.repeat(n), status: 400, mention: /params\// })),
          ),
        )
        .map(([r, { id, status, mention }]) =>
          attack(r, {
            name: 'bad path',
            url: r.path(id),
            body: r.body,
            status,
            mentions: [mention],
          }),
        ),
      30,
    ));

  it('bodies over the size limit (413)', async () => {
    const huge = `{"pad": "${'x'.repeat(LIMITS.bodyBytes)}"}`;
    for (const r of JSON_ROUTES)
      await target.run(attack(r, { name: 'too large', body: huge, status: 413, mentions: [/too large/] }));
    await target.run(
      attack(ROUTES[2]!, {
        name: 'import too large',
        body: Buffer.alloc(LIMITS.bodyBytes + 1, 0x20),
        contentType: 'application/x-ndjson',
        status: 413,
        mentions: [/too large/],
      }),
    );
  });

  it('more runs or tasks than a request may carry', async () => {
    const runs = Array.from({ length: LIMITS.runsPerBatch + 1 }, (_, i) => validRun(`many-${i}`));
    await target.run(
      attack(ROUTES[6]!, { name: '5,001 runs', body: { runs }, status: 400, mentions: ['body/runs', '5000'] }),
    );
    const tasks = Array.from({ length: LIMITS.tasksPerRequest + 1 }, (_, i) => ({
      id: `many-${i}`,
      type: 'swebench_verified',
    }));
    await target.run(
      attack(ROUTES[1]!, { name: '5,001 tasks', body: { tasks }, status: 400, mentions: ['body/tasks', '5000'] }),
    );
  });
});
