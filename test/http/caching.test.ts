// What a cache between a client and the server may keep (RFC 9111). Every read of the API changes
// with the writes (API.md: a read reflects every write acknowledged before it), and many answer the
// admin more than anyone else (a competition's allow-list, runs' votes, answer keys): each read says
// `Cache-Control: no-cache` (a cache asks the server before it reuses an answer; a 200 or 404 without
// it may be reused for as long as the cache guesses, RFC 9111 4.2.2) and varies on Authorization (a
// cache keeps the anonymous and the admin's answers apart, 4.1). The score reads set both themselves
// (src/http/representation.ts); here every GET route of the OpenAPI document is held to it.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';

let t: TestApp;

beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  const tasks = { tasks: [{ id: 'a', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks })).status,
  ).toBe(200);
  const payload = { runs: [run('b1', null, true), run('m1', 'alice', true)] };
  expect((await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload })).status).toBe(200);
  const taken = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(taken.status).toBe(201);
});
afterEach(async () => t.close());

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const params: Record<string, string> = {
  competitionId: 'c',
  taskId: 'a',
  hotkey: 'alice',
  seq: '1',
  runId: 'm1',
  digest: '0'.repeat(64),
  sessionId: 'none',
};
/** Every GET of the API (under /v1) but the event stream, which never ends. */
const reads = Object.entries(doc.paths)
  .filter(([path, ops]) => ops.get && path.startsWith('/v1/') && !path.endsWith('/events'))
  .map(([path]) => path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]!));

describe('every read of the API, answered or not found', () => {
  it.each(reads)('%s: Cache-Control no-cache, Vary on Authorization', async (url) => {
    const seen: string[] = [];
    for (const target of [url, url.replace('/competitions/c', '/competitions/nope')])
      for (const headers of [{}, admin]) {
        const res = await t.app.inject({ method: 'GET', url: target, headers });
        if (res.statusCode !== 200 && res.statusCode !== 404) continue;
        const vary = String(res.headers.vary ?? '')
          .split(',')
          .map((v) => v.trim().toLowerCase());
        const label = `${target} ${'authorization' in headers ? 'admin' : 'anonymous'} ${res.statusCode}`;
        seen.push(label);
        expect(String(res.headers['cache-control']), label).toMatch(/\bno-(cache|store)\b/);
        expect(vary, label).toContain('authorization');
      }
    // A backup is a 409 on PostgreSQL (pg_dump's to make).
    if (!url.endsWith('/backup')) expect(seen.length).toBeGreaterThan(0);
  });
});
