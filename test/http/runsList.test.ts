// GET /v1/competitions/{id}/runs (API.md 1.1): stored runs, newest last, filtered, paged by a
// cursor that stays valid while runs are added (and deleted).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import { createValidators, postRuns, setupCompetition, type Validator } from './trustKit.js';

let t: TestApp;
let A: Validator;
let B: Validator;
afterEach(async () => t.close());

const miner = (runId: string, taskId: string, hotkey: string) => ({
  runId,
  taskId,
  kind: 'miner',
  minerHotkey: hotkey,
  resolved: true,
});
const baseline = (runId: string, taskId: string) => ({ runId, taskId, kind: 'baseline', resolved: false });

beforeEach(async () => {
  t = await testApp();
  await setupCompetition(t);
  await setupCompetition(t, 'other');
  [A, B] = (await createValidators(t, 2)) as [Validator, Validator];
  await postRuns(t, A.headers, [miner('r1', 'swe-a', 'm1'), baseline('r2', 'swe-a'), miner('r3', 'swe-b', 'm2')]);
  await postRuns(t, B.headers, [miner('r4', 'swe-a', 'm2'), miner('r5', 'swe-b', 'm1'), baseline('r6', 'swe-b')]);
  await postRuns(t, admin, [miner('r7', 'swe-a', 'm1')]);
  await postRuns(t, A.headers, [miner('elsewhere', 'swe-a', 'm1')], 'other');
});

const list = async (query = '') => {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/c/runs${query}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { runs: { runId: string; seq: number; validatorId: string | null }[]; nextCursor: string | null };
};
const ids = async (query = '') => (await list(query)).runs.map((r) => r.runId);

/** Every run through the pages of `limit`, checking each page's size and cursor. */
async function walk(limit: number, query = '', between?: (page: number) => Promise<void>) {
  const seen: { runId: string; seq: number }[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const body = await list(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(body.runs.length).toBeLessThanOrEqual(limit);
    seen.push(...body.runs);
    if (body.nextCursor === null) break;
    cursor = body.nextCursor;
    await between?.(page);
  }
  return seen;
}

it('lists every run of the competition, newest last, with the validator that sent it', async () => {
  const { runs, nextCursor } = await list();
  expect(runs.map((r) => r.runId)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  expect(nextCursor).toBeNull();
  const seqs = runs.map((r) => r.seq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(runs.map((r) => r.validatorId)).toEqual([A.id, A.id, A.id, B.id, B.id, B.id, null]);
});

it('filters by validator, miner, task and kind, alone and together', async () => {
  expect(await ids(`?validator=${A.id}`)).toEqual(['r1', 'r2', 'r3']);
  expect(await ids(`?validator=${B.id}`)).toEqual(['r4', 'r5', 'r6']);
  expect(await ids('?miner=m1')).toEqual(['r1', 'r5', 'r7']);
  expect(await ids('?task=swe-b')).toEqual(['r3', 'r5', 'r6']);
  expect(await ids('?kind=baseline')).toEqual(['r2', 'r6']);
  expect(await ids(`?validator=${B.id}&kind=miner&task=swe-a`)).toEqual(['r4']);
  expect(await ids('?miner=m1&task=swe-a')).toEqual(['r1', 'r7']);
  expect(await ids('?miner=nobody')).toEqual([]);
  expect(await ids('?validator=unknown-validator')).toEqual([]);
});

it('pages with limit and cursor, and the cursor stays valid while runs are added and deleted', async () => {
  expect((await walk(2)).map((r) => r.runId)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  expect((await walk(1, '&miner=m1')).map((r) => r.runId)).toEqual(['r1', 'r5', 'r7']);

  let added = 0;
  const seen = await walk(2, '', async (page) => {
    if (page === 0) {
      // r3 is on the next page, r1 was on this one: both deletions are seen (r3 skipped, r1 already listed).
      expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r3', headers: admin })).status).toBe(200);
      expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers: A.headers })).status).toBe(
        200,
      );
    }
    if (page < 3) {
      await postRuns(t, B.headers, [miner(`new${page}`, 'swe-a', 'm3')]);
      added++;
    }
  });
  expect(seen.map((r) => r.runId)).toEqual(['r1', 'r2', 'r4', 'r5', 'r6', 'r7', 'new0', 'new1', 'new2']);
  expect(added).toBe(3);
  const seqs = seen.map((r) => r.seq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
});

it('refuses a bad cursor or limit with a 400 naming it, and an unknown competition with a 404', async () => {
  for (const [query, field] of [
    ['?cursor=abc', 'cursor'],
    ['?cursor=-1', 'cursor'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?kind=judge', 'kind'],
    ['?colour=red', 'colour'],
  ]) {
    const res = await t.call({ method: 'GET', url: `/v1/competitions/c/runs${query}` });
    expect(res.status, query).toBe(400);
    expect(JSON.stringify(res.body.errors), query).toContain(`querystring/${field}`);
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/nope/runs' })).status).toBe(404);
});
