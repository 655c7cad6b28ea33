// Access: every write route against no token, malformed headers, unknown tokens, a revoked
// validator key, a validator key on an admin route and the admin token (API.md: 401, 401, 401,
// 401, 403, success); validator keys on validator routes; a validator deleting another's run;
// reads when the server demands a token. A refused request changes nothing.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, testApp, type TestApp } from '../support/app.js';
import { COMPETITION, QNA_TASK, setupCompetition } from './fixture.js';
import { validRun } from './hostileKit.js';

const c = `/v1/competitions/${COMPETITION}`;
const row = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8').split('\n')[0]!;

interface World {
  t: TestApp;
  keyA: string;
  keyB: string;
  revokedKey: string;
  idB: string;
}

async function world(options: { readsRequireToken?: boolean } = {}): Promise<World> {
  const t = await testApp(options);
  await setupCompetition((method, url, payload) =>
    t.call({ method: method, url, headers: admin, payload: payload as object }),
  );
  const make = async (name: string) =>
    (await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name } })).body;
  const [a, b, r] = [await make('a'), await make('b'), await make('revoked')];
  expect((await t.call({ method: 'DELETE', url: `/v1/validators/${r.id}`, headers: admin })).status).toBe(200);
  for (const [key, id] of [
    [a.apiKey, 'run-a'],
    [b.apiKey, 'run-b'],
  ]) {
    const res = await t.call({
      method: 'POST',
      url: `${c}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { runs: [validRun(id)] },
    });
    expect(res.status).toBe(200);
  }
  return { t, keyA: a.apiKey, keyB: b.apiKey, revokedKey: r.apiKey, idB: b.id };
}

type Route = {
  name: string;
  method: 'PUT' | 'POST' | 'DELETE';
  url: (w: World) => string;
  body?: unknown;
  contentType?: string;
  ok: number[];
  validator: boolean;
};
const ROUTES: Route[] = [
  { name: 'PUT competition', method: 'PUT', url: () => c, body: { name: 'Renamed' }, ok: [200], validator: false },
  {
    name: 'PUT tasks',
    method: 'PUT',
    url: () => `${c}/tasks`,
    body: { tasks: [{ id: 'new-task', type: 'swebench_verified' }] },
    ok: [200],
    validator: false,
  },
  {
    name: 'POST import',
    method: 'POST',
    url: () => `${c}/tasks/import`,
    body: `${row}\n`,
    contentType: 'application/x-ndjson',
    ok: [200],
    validator: false,
  },
  {
    name: 'POST validators',
    method: 'POST',
    url: () => '/v1/validators',
    body: { name: 'new' },
    ok: [201],
    validator: false,
  },
  { name: 'DELETE validators', method: 'DELETE', url: (w) => `/v1/validators/${w.idB}`, ok: [200], validator: false },
  {
    name: 'PUT miners',
    method: 'PUT',
    url: () => `${c}/miners/hk-a`,
    body: { excluded: true },
    ok: [200, 201],
    validator: false,
  },
  {
    name: 'POST runs',
    method: 'POST',
    url: () => `${c}/runs`,
    body: { runs: [validRun('new-run')] },
    ok: [200],
    validator: true,
  },
  { name: 'DELETE runs', method: 'DELETE', url: () => `${c}/runs/run-a`, ok: [200], validator: true },
];

async function send(w: World, r: Route, authorization: string | undefined) {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  let payload: string | undefined;
  if (r.body !== undefined) {
    payload = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    headers['content-type'] = r.contentType ?? 'application/json';
  }
  return w.t.call({ method: r.method, url: r.url(w), headers, payload });
}

const MALFORMED = [
  'Bearer',
  'Bearer ',
  `Basic ${Buffer.from('admin:secret').toString('base64')}`,
  'Bearer two words',
  `Bearer ${'x'.repeat(600)}`,
  'Token abc',
  `${ADMIN_TOKEN}`,
  `Bearer  ${ADMIN_TOKEN}`,
];
const UNKNOWN = [
  `swv_${'0'.repeat(32)}_${'A'.repeat(43)}`,
  'not-a-real-token',
  `${ADMIN_TOKEN}x`,
  ADMIN_TOKEN.slice(0, -1),
];
const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.t.close();
});

describe('write routes', () => {
  it('refuse missing, malformed, unknown and revoked credentials (401) and validator keys on admin routes (403)', async () => {
    const w = await world();
    worlds.push(w);
    const before = await w.t.dump();
    let tried = 0;
    for (const r of ROUTES) {
      const cases: [string, string | undefined, number][] = [
        ['no token', undefined, 401],
        ...MALFORMED.map((h): [string, string, number] => [`malformed ${h.slice(0, 20)}`, h, 401]),
        ...UNKNOWN.map((k): [string, string, number] => [`unknown ${k.slice(0, 20)}`, `Bearer ${k}`, 401]),
        ['revoked key', `Bearer ${w.revokedKey}`, 401],
      ];
      if (!r.validator) cases.push(['validator key', `Bearer ${w.keyA}`, 403]);
      for (const [label, header, status] of cases) {
        const res = await send(w, r, header);
        tried++;
        expect(res.status, `${r.name} with ${label}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({
          status,
          type: expect.any(String),
          title: expect.any(String),
          detail: expect.any(String),
        });
        expect(res.body.detail).toMatch(status === 403 ? /admin token/ : /token/);
      }
    }
    expect((await w.t.dump()) === before, 'a refused request changed the database').toBe(true);
    console.log(`[access] refused requests tried: ${tried}, database unchanged`);
  });

  for (const r of ROUTES) {
    it(`${r.name}: the admin token succeeds${r.validator ? ', and so does a validator key' : ''}`, async () => {
      const w = await world();
      worlds.push(w);
      const res = await send(w, r, `Bearer ${ADMIN_TOKEN}`);
      expect(r.ok, `${r.name}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
      if (r.validator) {
        const v = await world();
        worlds.push(v);
        const byValidator = await send(v, r, `Bearer ${v.keyA}`);
        expect(r.ok, `${r.name} by validator: ${JSON.stringify(byValidator.body)}`).toContain(byValidator.status);
      }
    });
  }

  it("a validator cannot delete another validator's run (403), the admin can", async () => {
    const w = await world();
    worlds.push(w);
    const before = await w.t.dump();
    const res = await w.t.call({
      method: 'DELETE',
      url: `${c}/runs/run-b`,
      headers: { authorization: `Bearer ${w.keyA}` },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('run-b');
    expect((await w.t.dump()) === before).toBe(true);
    expect((await w.t.call({ method: 'GET', url: `${c}/runs/run-b` })).status).toBe(200);
    expect(
      (await w.t.call({ method: 'DELETE', url: `${c}/runs/run-b`, headers: { authorization: `Bearer ${w.keyB}` } }))
        .status,
    ).toBe(200);
    expect((await w.t.call({ method: 'DELETE', url: `${c}/runs/run-a`, headers: admin })).status).toBe(200);
    expect((await w.t.call({ method: 'GET', url: `${c}/runs/run-b` })).status).toBe(404);
  });
});

describe('reads', () => {
  const READS = [
    '/v1/competitions',
    c,
    `${c}/tasks`,
    `${c}/tasks/sw-1`,
    `${c}/tasks/${QNA_TASK}`,
    `${c}/runs/run-a`,
    `${c}/leaderboard`,
    `${c}/weights`,
    `${c}/miners/hk-a`,
  ];

  it('need a token when SCORING_READS_REQUIRE_TOKEN is on', async () => {
    const w = await world({ readsRequireToken: true });
    worlds.push(w);
    for (const path of READS) {
      for (const [label, header, status] of [
        ['no token', undefined, 401],
        ['malformed', 'Basic abc', 401],
        ['unknown', 'Bearer nobody', 401],
        ['revoked', `Bearer ${w.revokedKey}`, 401],
        ['validator', `Bearer ${w.keyA}`, 200],
        ['admin', `Bearer ${ADMIN_TOKEN}`, 200],
      ] as [string, string | undefined, number][]) {
        const res = await w.t.call({ method: 'GET', url: path, headers: header ? { authorization: header } : {} });
        expect(res.status, `GET ${path} with ${label}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(status);
        if (status === 401) expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      }
    }
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await w.t.call({ method: 'GET', url: path })).status, path).toBe(200);
  });

  it('are public by default', async () => {
    const w = await world();
    worlds.push(w);
    for (const path of READS) expect((await w.t.call({ method: 'GET', url: path })).status, path).toBe(200);
  });
});
