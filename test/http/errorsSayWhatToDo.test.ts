// Errors that say what to do (issue 14): 415 lists the accepted types, 413 states the limit,
// unknown query parameters are named, batch errors name the run's index and id, a 409 says who
// stored the original and which fields differ.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/schemas/common.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let v: { authorization: string };
let validatorId: string;
const runs = '/v1/competitions/comp/runs';
const run = (runId: string, extra: Record<string, unknown> = {}) => ({
  runId,
  taskId: 'T1',
  kind: 'miner',
  minerHotkey: 'alice',
  resolved: true,
  tokens: { input: 100, output: 10 },
  ...extra,
});

beforeAll(async () => {
  t = await testApp();
  const seeded = await seedCompetition(t);
  v = { authorization: `Bearer ${seeded.validatorKey}` };
  validatorId = seeded.validatorId;
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/comp/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'T1', type: 'swebench_verified' }] },
  });
  const first = await t.call({ method: 'POST', url: runs, headers: v, payload: { runs: [run('r1'), run('r2')] } });
  expect(first.body).toEqual({ accepted: 2, duplicates: 0 });
  await t.call({ method: 'POST', url: runs, headers: admin, payload: { runs: [run('by-admin')] } });
});
afterAll(() => t.close());

describe('415 and 413', () => {
  it('a JSON route without a content type lists application/json', async () => {
    const res = await t.call({ method: 'POST', url: runs, headers: { ...v, 'content-type': '' }, payload: 'x' });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/send application\/json/);
  });

  it('the task import sent as text lists both file types', async () => {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/comp/tasks/import',
      headers: { ...admin, 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(res.status).toBe(415);
    expect(res.body.detail).toContain('text/csv is not accepted here');
    expect(res.body.detail).toContain('application/vnd.apache.parquet or application/x-ndjson');
  });

  it('a Parquet body on a JSON route says the route takes JSON', async () => {
    const res = await t.call({
      method: 'POST',
      url: runs,
      headers: { ...v, 'content-type': 'application/vnd.apache.parquet' },
      payload: Buffer.from('PAR1'),
    });
    expect(res.status).toBe(415);
    expect(res.body.detail).toContain('accepts application/json');
  });

  it('413 states the limit in bytes and MiB and where big files go', async () => {
    const res = await t.call({
      method: 'POST',
      url: runs,
      headers: { ...v, 'content-type': 'application/json' },
      payload: Buffer.alloc(LIMITS.bodyBytes + 1, 0x20),
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain(`${LIMITS.bodyBytes} bytes (32 MiB)`);
    expect(res.body.detail).toContain('import session');
  });
});

describe('unknown query parameters', () => {
  it.each([
    ['/v1/competitions/comp/leaderboard?stage=screener_1', 'querystring/stage'],
    ['/v1/competitions?limit=5', 'querystring/limit'],
    ['/v1/competitions/comp/runs/r1?verbose=1', 'querystring/verbose'],
  ])('%s is a 400 naming %s', async (url, path) => {
    const res = await t.call({ method: 'GET', url });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path, message: 'unknown field' }]);
  });

  it.each([
    ['/v1/competitions/comp/runs?limit=1&limit=2', 'querystring/limit', 2],
    ['/v1/competitions/comp/runs/export?format=csv&format=csv', 'querystring/format', 2],
    ['/v1/competitions/comp/leaderboard?stages=a&stages=b&stages=c', 'querystring/stages', 3],
  ])('%s, a parameter given more than once, is a 400 saying so', async (url, path, times) => {
    const res = await t.call({ method: 'GET', url, headers: admin });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path, message: `given ${times} times; send it once` }]);
  });

  it('a write with an unknown parameter stores nothing', async () => {
    const res = await t.call({
      method: 'POST',
      url: `${runs}?dryRun=true`,
      headers: v,
      payload: { runs: [run('q-1')] },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('querystring/dryRun');
    expect((await t.call({ method: 'GET', url: `${runs}/q-1` })).status).toBe(404);
  });
});

describe('batch errors name the run', () => {
  it('404: every run naming an unknown task, by index and runId', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => run(`u-${i}`, i === 17 || i === 3 ? { taskId: 'NOPE' } : {}));
    const res = await t.call({ method: 'POST', url: runs, headers: v, payload: { runs: batch } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([
      { path: 'body/runs/3/taskId', message: 'run u-3: task NOPE does not exist in competition comp' },
      { path: 'body/runs/17/taskId', message: 'run u-17: task NOPE does not exist in competition comp' },
    ]);
    expect(res.body.detail).toContain('body/runs/3/taskId (run u-3)');
  });

  it('404: the detail names a run whose id holds a colon whole (the `v7:` prefix VALIDATING.md suggests)', async () => {
    const batch = [run('v7:2f0c-a'), run('v7:2f0c-b', { taskId: 'NOPE' })];
    const res = await t.call({ method: 'POST', url: runs, headers: v, payload: { runs: batch } });
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('body/runs/1/taskId (run v7:2f0c-b)');
  });

  it('400: a miner run without a hotkey is named by index', async () => {
    const batch = [run('h-0'), run('h-1'), run('h-2'), { runId: 'h-3', taskId: 'T1', kind: 'miner', resolved: true }];
    const res = await t.call({ method: 'POST', url: runs, headers: v, payload: { runs: batch } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['body/runs/3/minerHotkey']);
  });

  it('400: a baseline run with a hotkey, and a run with neither resolved nor votes', async () => {
    const batch = [
      { runId: 'b-0', taskId: 'T1', kind: 'baseline', minerHotkey: 'x', resolved: true },
      { runId: 'b-1', taskId: 'T1', kind: 'baseline' },
    ];
    const res = await t.call({ method: 'POST', url: runs, headers: v, payload: { runs: batch } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'body/runs/0/minerHotkey', message: 'must be absent for a baseline run' },
      { path: 'body/runs/1/resolved', message: 'required unless rubricVotes are sent' },
    ]);
  });

  it('409: names the index, the validator that stored the original and the fields that differ', async () => {
    const other = await t.call({
      method: 'POST',
      url: '/v1/validators',
      headers: admin,
      payload: { name: 'second validator' },
    });
    const res = await t.call({
      method: 'POST',
      url: runs,
      headers: { authorization: `Bearer ${other.body.apiKey}` },
      payload: { runs: [run('new-1'), run('r2', { resolved: false, tokens: { input: 1, output: 10 } })] },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([
      {
        path: 'body/runs/1/runId',
        message: `run r2 was stored by another validator "validator" (${validatorId}) with different resolved, tokens`,
      },
    ]);
    expect(res.body.detail).toContain('nothing stored');
    expect((await t.call({ method: 'GET', url: `${runs}/new-1` })).status).toBe(404);
  });

  it('409: an original the admin stored says so', async () => {
    const res = await t.call({
      method: 'POST',
      url: runs,
      headers: v,
      payload: { runs: [run('by-admin', { minerHotkey: 'bob' })] },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].message).toBe('run by-admin was stored by the admin with different minerHotkey');
  });
});

describe('a missing competition', () => {
  it.each([
    ['an import', 'POST', '/v1/competitions/nope/tasks/import', 'application/x-ndjson', '{}\n'],
    ['an import session', 'POST', '/v1/competitions/nope/tasks/imports', 'application/json', '{"format": "jsonl"}'],
  ])('%s into it says how to create it', async (_what, method, url, type, payload) => {
    const res = await t.call({ method: method, url, headers: { ...admin, 'content-type': type }, payload });
    expect(res.status).toBe(404);
    expect((res.body as { detail: string }).detail).toBe(
      'competition nope does not exist; create it first (PUT /v1/competitions/nope)',
    );
  });
});
