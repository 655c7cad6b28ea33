// HEAD answers what GET would (RFC 9110 9.3.2): the same status and header fields, no content. Its
// Content-Length, when sent, is the length GET would send for the same request (8.6): the length of
// the compressed body when GET would compress it; and a 304 carries none, as GET's 304 carries none
// (8.6: a Content-Length in a 304 must be the 200's). Fastify answers HEAD from each GET route
// (src/plugins/headRoutes.ts); every GET route of the OpenAPI document is held to it here.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';

let t: TestApp;

/** A competition with 40 miners (bodies of 1 KiB and more: compressed), a judge, a metagraph and a snapshot. */
async function seed() {
  await seedCompetition(t, 'c');
  const tasks = { tasks: [{ id: 'a', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks })).status,
  ).toBe(200);
  const runs = Array.from({ length: 40 }, (_, i) =>
    run(`m${i}`, `miner-${String(i).padStart(3, '0')}`, i % 3 !== 0, 50 + i),
  );
  const payload = { runs: [run('b1', null, true), run('b2', null, false), run('al', 'alice', true), ...runs] };
  expect((await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload })).status).toBe(200);
  const metagraph = {
    netuid: 1,
    block: 1,
    neurons: [{ uid: 0, hotkey: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM' }],
  };
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/metagraph', headers: admin, payload: metagraph })).status,
  ).toBe(200);
  const taken = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(taken.status).toBe(201);
}

beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};
const params: Record<string, string> = {
  competitionId: 'c',
  taskId: 'a',
  hotkey: 'alice',
  seq: '1',
  runId: 'm1',
  digest: 'none',
  sessionId: 'none',
};
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]!);
const conditional = Object.entries(doc.paths)
  .filter(([, ops]) => ops.get?.responses['304'])
  .map(([path]) => concrete(path));

describe('a HEAD answered 304', () => {
  it('covers the conditional reads', () => {
    expect(conditional.length).toBeGreaterThan(10);
    expect(conditional).toContain('/v1/competitions/c/snapshots/1/input');
  });

  it.each(conditional)('%s: no Content-Length, as its GET 304', async (url) => {
    await seed();
    for (const coding of ['identity', 'gzip', 'br']) {
      const headers = { 'accept-encoding': coding };
      const got = await t.app.inject({ method: 'GET', url, headers });
      expect(got.statusCode, coding).toBe(200);
      const held = { ...headers, 'if-none-match': got.headers.etag as string };
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await t.app.inject({ method, url, headers: held });
        const label = `${method} ${coding}`;
        expect(res.statusCode, label).toBe(304);
        expect(res.headers['content-length'], label).toBeUndefined();
        expect(res.headers['transfer-encoding'], label).toBeUndefined();
        expect(res.rawPayload.length, label).toBe(0);
      }
    }
  });
});

/** Every GET but the event stream (it never ends) and the backup (a copy of the database, checked elsewhere). */
const reads = Object.entries(doc.paths)
  .filter(([path, ops]) => ops.get && !path.endsWith('/events') && !path.endsWith('/backup'))
  .map(([path]) => concrete(path));

/** The header fields GET and HEAD must agree on; Content-Length apart. */
const FIELDS = ['content-type', 'content-encoding', 'vary', 'etag', 'cache-control', 'www-authenticate'];

describe('HEAD sends the header fields GET sends', () => {
  it.each(reads)('%s, for each coding asked, with and without a token', async (url) => {
    await seed();
    const got: string[] = [];
    const want: string[] = [];
    for (const coding of ['identity', 'gzip', 'br', 'gzip, deflate, br'])
      for (const auth of [{}, admin, { authorization: 'Bearer mistyped' }] as Record<string, string>[]) {
        const headers = { 'accept-encoding': coding, ...auth };
        const label = `${coding} ${auth.authorization ?? 'anonymous'}`;
        const get = await t.app.inject({ method: 'GET', url, headers });
        const head = await t.app.inject({ method: 'HEAD', url, headers });
        const fields = (res: typeof get) => FIELDS.map((f) => `${f}=${String(res.headers[f])}`).join(' ');
        want.push(`${label}: ${get.statusCode} ${fields(get)}`);
        got.push(`${label}: ${head.statusCode} ${fields(head)}`);
        // The metrics change from one read to the next: their length too.
        if (url === '/metrics') continue;
        // A Content-Length, if any, is that of the bytes GET sends (RFC 9110 8.6).
        const length = head.headers['content-length'];
        if (length !== undefined) expect(Number(length), label).toBe(get.rawPayload.length);
        expect(head.rawPayload.length, label).toBe(0);
      }
    expect(got).toEqual(want);
  });
});

describe('HEAD of a path no GET route serves', () => {
  it.each([
    ['/v1/nothing', 404],
    ['/v1/competitions/c/leaderboard/x', 404],
    ['/v1/score', 405], // a POST route's path
  ])('%s: the %i GET gets, with its Content-Length', async (url, status) => {
    const get = await t.app.inject({ method: 'GET', url });
    const head = await t.app.inject({ method: 'HEAD', url });
    expect(get.statusCode).toBe(status);
    expect(head.statusCode).toBe(status);
    expect(head.headers.allow).toBe(get.headers.allow);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(String(get.rawPayload.length));
  });
});
