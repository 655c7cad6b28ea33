// The score cache follows the storage layer's write events: every write route changes what the
// next read shows, though no handler invalidates anything. Each case reads (filling the cache),
// writes through the route, and reads again through the same app.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
const url = '/v1/competitions/c';
const get = async (path: string) => {
  const res = await t.call({ method: 'GET', url: `${url}${path}` });
  expect(res.status, path).toBe(200);
  return res.body;
};
const write = async (method: 'PUT' | 'POST' | 'DELETE', path: string, payload?: object) => {
  const res = await t.call({ method, url: `${url}${path}`, headers: admin, ...(payload ? { payload } : {}) });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
};
const run = (runId: string, hotkey: string | null, resolved: boolean, taskId = 'a') => ({
  runId,
  taskId,
  resolved,
  tokens: { input: 1000, output: 100 },
  ...(hotkey ? { kind: 'miner', minerHotkey: hotkey } : { kind: 'baseline' }),
});

beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  await write('PUT', '/tasks', { tasks: [{ id: 'a', type: 'swebench_verified', complexity: 'short' }] });
  await write('POST', '/runs', { runs: [run('b1', null, true), run('b2', null, true), run('m1', 'alice', true)] });
});
afterEach(async () => t.close());

it('POST runs: a new miner appears on the cached leaderboard', async () => {
  expect((await get('/leaderboard')).miners.map((m: { hotkey: string }) => m.hotkey)).toEqual(['alice']);
  await write('POST', '/runs', { runs: [run('m2', 'bob', true)] });
  expect((await get('/leaderboard')).miners.map((m: { hotkey: string }) => m.hotkey)).toEqual(['alice', 'bob']);
});

it('POST runs (baseline only): the cached task detail counts the new baseline run', async () => {
  expect((await get('/tasks/a')).baseline.runs).toBe(2);
  await write('POST', '/runs', { runs: [run('b3', null, false)] });
  expect((await get('/tasks/a')).baseline.runs).toBe(3);
});

it('DELETE run: the cached miner breakdown loses the run', async () => {
  await write('POST', '/runs', { runs: [run('m2', 'alice', false)] });
  expect((await get('/miners/alice')).tasks[0].runs).toBe(2);
  await write('DELETE', '/runs/m2');
  expect((await get('/miners/alice')).tasks[0].runs).toBe(1);
});

it('PUT competition: new settings reach the cached weights', async () => {
  expect((await get('/weights')).burnRatio).toBe(0);
  await write('PUT', '', { name: 'Test', burnRatio: 0.25 });
  expect((await get('/weights')).burnRatio).toBe(0.25);
});

it('PUT tasks: a new complexity reaches the cached leaderboard', async () => {
  expect((await get('/leaderboard')).miners[0].groupScores).toHaveProperty('short');
  await write('PUT', '/tasks', { tasks: [{ id: 'a', type: 'swebench_verified', complexity: 'long' }] });
  const groups = (await get('/leaderboard')).miners[0].groupScores;
  expect(groups).toHaveProperty('long');
  expect(groups).not.toHaveProperty('short');
});

it('POST tasks/import: a re-import with a complexity reaches the cached leaderboard', async () => {
  const file = readFileSync(new URL('../../fixtures/swe-atlas-qna/test-00000-of-00001.parquet', import.meta.url));
  const importFile = async (query: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${url}/tasks/import${query}`,
      headers: { ...admin, 'content-type': 'application/vnd.apache.parquet' },
      payload: file,
    });
    expect(res.statusCode).toBe(200);
  };
  await importFile('');
  const qna = (await get('/tasks')).tasks.find((x: { type: string }) => x.type === 'swe_atlas_qna').id;
  await write('POST', '/runs', {
    runs: [run('qb', null, true, qna), run('qb2', null, true, qna), run('qm', 'bob', true, qna)],
  });
  expect((await get('/leaderboard')).miners.find((m: { hotkey: string }) => m.hotkey === 'bob').groupScores).toEqual(
    {},
  );
  await importFile('?complexity=medium');
  expect(
    (await get('/leaderboard')).miners.find((m: { hotkey: string }) => m.hotkey === 'bob').groupScores,
  ).toHaveProperty('medium');
});

it('PUT miner: an exclusion reaches the cached leaderboard', async () => {
  expect((await get('/leaderboard')).miners[0].rank).toBe(1);
  await write('PUT', '/miners/alice', { excluded: true });
  expect((await get('/leaderboard')).miners[0]).toMatchObject({ excluded: true, rank: null });
});
