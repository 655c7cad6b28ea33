import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

it('an unexpected failure is a 500 problem that leaks no internals', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  // Break the storage underneath the app: the table the list reads is gone.
  await t.query({ sqlite: 'DROP TABLE validators', postgres: 'DROP TABLE validators CASCADE' });
  const res = await t.call({ method: 'GET', url: '/v1/validators', headers: admin });
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual({
    type: 'urn:swe-scoring:problem:internal',
    title: 'Internal server error',
    status: 500,
    detail: 'the server could not complete the request; it is logged',
  });
  expect(JSON.stringify(res.body)).not.toMatch(/validators|sqlite|stack/i);
});

it('a stream that fails before its first byte answers a problem its client can decode, asked with gzip', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  const tasks = { tasks: [{ id: 'a', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks })).status,
  ).toBe(200);
  // The export's own reads come after the answer started (its coding chosen): the criteria of its
  // first page of tasks are gone, so the stream fails before its first byte.
  await t.query({ sqlite: 'DROP TABLE task_criteria', postgres: 'DROP TABLE task_criteria CASCADE' });
  const res = await t.app.inject({
    method: 'GET',
    url: '/v1/competitions/c/tasks/export',
    headers: { ...admin, 'accept-encoding': 'gzip' },
  });
  expect(res.statusCode).toBe(500);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  // Whatever coding the answer names is the one its bytes are in.
  const coding = res.headers['content-encoding'];
  const text = coding === 'gzip' ? gunzipSync(res.rawPayload).toString() : res.payload;
  expect(coding === undefined || coding === 'gzip').toBe(true);
  expect(JSON.parse(text)).toMatchObject({ type: 'urn:swe-scoring:problem:internal', status: 500 });
});

it('a problem lists at most 100 fields, and says how many there are in all', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  const runs = Array.from({ length: 5000 }, () => ({ runId: 7 }));
  const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
  expect(res.status).toBe(400);
  const body = res.body as { detail: string; errors: { path: string }[] };
  expect(body.errors).toHaveLength(100);
  expect(body.errors[0]!.path).toMatch(/^body\/runs\/0\//);
  expect(body.detail).toMatch(/\(\d{4,} problems in all; errors lists the first 100\)$/);
  expect(JSON.stringify(body).length).toBeLessThan(20_000);
  expect(await t.count('runs')).toBe(0);
});

it('an unknown route is a 404 problem', async () => {
  const res = await t.call({ method: 'GET', url: '/v1/nothing' });
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ status: 404, detail: 'no route GET /v1/nothing' });
});

it("a path parameter past the router's cap is a 414 that says so, without echoing the path", async () => {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/${'a'.repeat(5000)}/leaderboard` });
  expect(res.status).toBe(414);
  expect(res.body.type).toBe('urn:swe-scoring:problem:uri-too-long');
  expect(res.body.detail).toContain('1,024 characters');
  expect(res.body.detail.length).toBeLessThan(200);
});

it('invalid JSON is a 400 problem, not a 500', async () => {
  const res = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: { ...admin, 'content-type': 'application/json' },
    payload: '{"name": ',
  });
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(/not valid JSON/);
});

it.each([
  ['NaN', '{"name": "x", "burnRatio": NaN}', 'line 1, column 28: found "NaN}"'],
  ['Infinity, a line down', '{"name": "x",\n "burnRatio": -Infinity}', 'line 2, column 16: found "Infinity}"'],
  ['a trailing comma', '{"name": "x",}', 'line 1, column 14: found "}"'],
  ['a single quote', "{'name': 'x'}", 'line 1, column 2: found'],
  ['a number with a leading zero', '{"name": "x", "burnRatio": 01}', 'line 1, column 29: found "1}"'],
  ['a cut-off body', '{"name": ', 'line 1, column 10: the body ends there'],
])(
  'invalid JSON (%s) is a 400 naming where it departs from JSON and what JSON takes',
  async (_name, payload, where) => {
    // Fastify's "Body is not valid JSON but content-type is set to 'application/json'" said neither.
    const res = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c',
      headers: { ...admin, 'content-type': 'application/json' },
      payload,
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(`body is not valid JSON at ${where}`);
    expect(res.body.detail).toContain('JSON (RFC 8259) has no NaN, Infinity');
    expect(res.body.errors).toEqual([{ path: 'body', message: expect.stringContaining(where) }]);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).status).toBe(404);
  },
);

it.each([
  '{"name": "x", "__proto__": {"admin": true}}',
  // Escaped: the text holds neither name written out.
  '{"name": "x", "\\u005f_proto__": {"admin": true}}',
  '{"name": "x", "\\u0063onstructor": {"prototype": {"admin": true}}}',
])(
  'a __proto__ key is a 400 that says so (valid JSON, refused as prototype poisoning), and stores nothing: %s',
  async (payload) => {
    const res = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c',
      headers: { ...admin, 'content-type': 'application/json' },
      payload,
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/__proto__/);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).status).toBe(404);
  },
);

it('a body with a byte order mark is taken as Fastify takes it', async () => {
  const res = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: { ...admin, 'content-type': 'application/json' },
    payload: '\ufeff{"name": "x"}',
  });
  expect(res.status).toBe(201);
});

it.each([
  ['a JSON write', '/v1/competitions/c', 'PUT', 'application/json', '{"name": "x"}'],
  ['a file import', '/v1/competitions/c/tasks/import', 'POST', 'application/x-ndjson', '{}\n'],
])(
  '%s with a Content-Encoding is a 415 naming the header, and stores nothing',
  async (_what, url, method, type, body) => {
    for (const coding of ['gzip', 'br']) {
      const res = await t.call({
        method: method,
        url,
        headers: { ...admin, 'content-type': type, 'content-encoding': coding },
        payload: body,
      });
      expect(res.status, coding).toBe(415);
      expect(res.body.errors).toEqual([{ path: 'headers/content-encoding', message: expect.any(String) }]);
    }
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).status).toBe(404);
    // identity is no coding at all.
    const plain = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c',
      headers: { ...admin, 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: '{"name": "x"}',
    });
    expect(plain.status).toBe(201);
  },
);

it('a NUL or a lone UTF-16 surrogate in any JSON string or key is a 400 naming where, and stores nothing', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  const cases = [
    // A snapshot note: its canonical JSON (the hash) has no form for it; it was a 500.
    ['POST', '/v1/competitions/c/snapshots', '{"note":"why \\ud800"}', 'body/note'],
    // A name: it was stored as U+FFFD, silently changed.
    ['PUT', '/v1/competitions/c', '{"name":"x\\udc00y"}', 'body/name'],
    ['PUT', '/v1/competitions/c', '{"name":"\\u00e9 \\uDBFF"}', 'body/name'],
    // NUL: PostgreSQL's text cannot hold it (it was a 500 there), SQLite kept it: refused on both.
    ['PUT', '/v1/competitions/c', '{"name":"a\\u0000b"}', 'body/name'],
    ['PUT', '/v1/competitions/c/miners/m1', '{"excluded":true,"reason":"x\\u0000"}', 'body/reason'],
    ['PUT', '/v1/competitions/c', '{"name":"c","\\ud83d":1}', 'body/\ufffd'],
    [
      'PUT',
      '/v1/competitions/c/tasks',
      '{"tasks":[{"id":"a","type":"swebench_verified"},{"id":"b\\ud800"}]}',
      'body/tasks/1/id',
    ],
  ] as const;
  for (const [method, url, payload, path] of cases) {
    const res = await t.call({ method, url, headers: { ...admin, 'content-type': 'application/json' }, payload });
    expect(res.status, `${url} ${payload}`).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([{ path, message: expect.stringMatching(/lone UTF-16 surrogate|NUL character/) }]);
  }
  const competition = await t.call({ method: 'GET', url: '/v1/competitions/c' });
  expect(competition.body).toMatchObject({ name: 'c', counts: { tasks: 0 } });
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/snapshots' })).body.snapshots).toEqual([]);
  // A surrogate pair, escaped, is a character like any other.
  const pair = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: { ...admin, 'content-type': 'application/json' },
    payload: '{"name":"test \\ud83e\\uddea"}',
  });
  expect(pair.status).toBe(200);
  expect(pair.body.name).toBe('test 🧪');
});

it('a JSON body that is not UTF-8 is refused and stores nothing: bad bytes a 400, another charset a 415', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  const put = (payload: Buffer, contentType = 'application/json') =>
    t.call({ method: 'PUT', url: '/v1/competitions/c', headers: { ...admin, 'content-type': contentType }, payload });
  // Bytes no UTF-8 text holds: they were read as U+FFFD and stored, silently changed.
  for (const bytes of [
    Buffer.from('{"name":"x\xff\xfe"}', 'latin1'),
    Buffer.from('{"name":"caf\xe9 cup"}', 'latin1'),
  ]) {
    const res = await put(bytes);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toContain('UTF-8');
    expect(res.body.errors).toEqual([{ path: 'body', message: expect.stringContaining('UTF-8') }]);
  }
  // Another charset declared: the body would be read as what it is not.
  const latin = await put(Buffer.from('{"name":"caf\xe9 cup"}', 'latin1'), 'application/json; charset=iso-8859-1');
  expect(latin.status).toBe(415);
  expect(latin.body.errors).toEqual([{ path: 'headers/content-type', message: expect.stringContaining('utf-8') }]);
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).body.name).toBe('c');
  // UTF-8 is taken, with or without the charset named, in any case and quoted.
  for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json']) {
    const res = await put(Buffer.from('{"name":"café ✓"}', 'utf8'), type);
    expect(res.status, type).toBe(200);
    expect(res.body.name).toBe('café ✓');
  }
});

it('health, readiness, metrics and docs are served', async () => {
  expect((await t.call({ method: 'GET', url: '/healthz' })).body).toEqual({ status: 'ok' });
  expect((await t.call({ method: 'GET', url: '/readyz' })).body).toEqual({ status: 'ok' });
  await t.call({ method: 'GET', url: '/v1/competitions' });
  const metrics = await t.call({ method: 'GET', url: '/metrics' });
  expect(metrics.body).toContain('http_request_duration_seconds_bucket');
  expect(metrics.body).toContain('route="/v1/competitions"');
  expect(metrics.body).toContain('scoring_runs_ingested_total');
  const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
  expect(docs.statusCode).toBe(200);
  expect(docs.body).toContain('swagger');
});

it('readiness fails when the migrations are not applied', async () => {
  await t.query({ sqlite: 'DELETE FROM __drizzle_migrations', postgres: 'DELETE FROM drizzle.__drizzle_migrations' });
  const res = await t.call({ method: 'GET', url: '/readyz' });
  expect(res.status).toBe(503);
});
