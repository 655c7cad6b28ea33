// Leaderboard pages (API.md 1.1): `?limit=&offset=&hotkeys=` return a slice of the ranked list, or
// the chosen miners, each entry as it stands in the full list (rank included), with `total` the
// number of entries before paging; every page has its own ETag, which follows writes.
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaderboardPageSchema } from '../../src/schemas/scores.js';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';

let t: TestApp;
const URL = '/v1/competitions/c/leaderboard';
const hotkey = (i: number) => `m${String(i).padStart(2, '0')}`;
const post = (runs: object[]) =>
  t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
const get = async (query = '') => {
  const res = await t.call({ method: 'GET', url: `${URL}${query}` });
  expect(res.status, query).toBe(200);
  return res.body;
};

// 23 miners: distinct token counts but two pairs tied (shared ranks), and one excluded (unranked).
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  const tasks = [{ id: 'a', type: 'swebench_verified' }];
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  const runs = [run('b1', null, true), run('b2', null, true), run('b3', null, true)];
  for (let i = 0; i < 22; i++) runs.push(run(`r${i}`, hotkey(i), true, 40 + 3 * (i === 4 || i === 9 ? i - 1 : i)));
  runs.push(run('r22', hotkey(22), false));
  expect((await post(runs)).status).toBe(200);
  const exclude = { excluded: true, reason: 'test' };
  const url = `/v1/competitions/c/miners/${hotkey(22)}`;
  expect((await t.call({ method: 'PUT', url, headers: admin, payload: exclude })).status).toBe(200);
});
afterEach(async () => t.close());

describe('GET …/leaderboard pages', () => {
  it('without parameters: the body as before plus total, the number of entries', async () => {
    const body = await get();
    const full = LeaderboardPageSchema.parse(body);
    expect(Object.keys(body)).toEqual(['competitionId', 'stages', 'baseline', 'total', 'miners']);
    expect(full.total).toBe(23);
    expect(full.miners).toHaveLength(23);
    const ranks = full.miners.map((m) => m.rank);
    expect(new Set(ranks).size).toBeLessThan(23); // ties share a rank: the test data has some
  });

  it.each([1, 4, 7, 22])(
    'limit %i walks the full list in order, every page with total and full-list ranks',
    async (limit) => {
      const full = await get();
      const walked: Json[] = [];
      for (let offset = 0; offset < full.total; offset += limit) {
        const page = await get(`?limit=${limit}&offset=${offset}`);
        expect(page.total).toBe(full.total);
        expect(page.miners).toHaveLength(Math.min(limit, full.total - offset));
        expect(page.miners).toEqual(full.miners.slice(offset, offset + limit));
        walked.push(...page.miners);
      }
      expect(walked).toEqual(full.miners);
    },
  );

  it('offset alone reads to the end; past the end the page is empty and total stays', async () => {
    const full = await get();
    expect((await get('?offset=20')).miners).toEqual(full.miners.slice(20));
    const past = await get('?offset=23&limit=5');
    expect(past).toMatchObject({ total: 23, miners: [] });
    expect((await get('?offset=1000000')).miners).toEqual([]);
  });

  it('a page that covers the whole list is the unpaged body, byte for byte and ETag for ETag', async () => {
    const plain = await t.app.inject({ method: 'GET', url: URL });
    for (const query of ['?offset=0', '?limit=23', '?limit=1000&offset=0']) {
      const res = await t.app.inject({ method: 'GET', url: `${URL}${query}` });
      expect(res.body, query).toBe(plain.body);
      expect(res.headers.etag, query).toBe(plain.headers.etag);
    }
  });

  it('hotkeys: only the chosen miners, in rank order with their full-list entries; unknown ones left out', async () => {
    const full = await get();
    const entry = (h: string) => full.miners.find((m: Json) => m.hotkey === h);
    const chosen = await get(`?hotkeys=${hotkey(22)},nobody,${hotkey(3)},${hotkey(9)},${hotkey(3)}`);
    expect(chosen.total).toBe(3);
    const expected = [hotkey(3), hotkey(9), hotkey(22)]
      .map(entry)
      .sort((a, b) => full.miners.indexOf(a) - full.miners.indexOf(b));
    expect(chosen.miners).toEqual(expected);
    expect(chosen.miners.at(-1).rank).toBeNull(); // excluded: unranked and last, as in the full list
    // limit and offset page the chosen miners.
    const second = await get(`?hotkeys=${hotkey(9)},${hotkey(22)},${hotkey(3)}&limit=1&offset=1`);
    expect(second).toMatchObject({ total: 3, miners: [expected[1]] });
    expect(await get('?hotkeys=nobody')).toMatchObject({ total: 0, miners: [] });
    // The order of the list does not matter.
    const a = await t.app.inject({ method: 'GET', url: `${URL}?hotkeys=${hotkey(1)},${hotkey(2)}` });
    const b = await t.app.inject({ method: 'GET', url: `${URL}?hotkeys=${hotkey(2)},${hotkey(1)}` });
    expect(a.body).toBe(b.body);
    expect(a.headers.etag).toBe(b.headers.etag);
  });

  it('stages apply to pages as to the whole list', async () => {
    const page = await get('?stages=screener_1&limit=2');
    expect(page).toMatchObject({ stages: ['screener_1'], total: 23 });
    expect(page.miners.every((m: Json) => m.rank === null)).toBe(true); // task a is in evaluation
  });
});

describe('ETags of pages', () => {
  it('differ per page, answer 304 per page, and change after a write that changes the page', async () => {
    const urls = ['', '?limit=5', '?limit=5&offset=5', `?hotkeys=${hotkey(0)}`].map((q) => `${URL}${q}`);
    const etags = [];
    for (const url of urls) {
      const first = await t.app.inject({ method: 'GET', url });
      const again = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': first.headers.etag as string },
      });
      expect(again.statusCode, url).toBe(304);
      etags.push(first.headers.etag);
    }
    expect(new Set(etags).size).toBe(urls.length);

    // m00 resolves a second run: its entry (runs), hence every page, changes.
    expect((await post([run('extra', hotkey(0), true, 40)])).status).toBe(200);
    for (const [i, url] of urls.entries()) {
      const after = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etags[i] as string } });
      expect(after.statusCode, url).toBe(200);
      expect(after.headers.etag, url).not.toBe(etags[i]);
    }
  });

  it('a page read after many others is the same bytes and ETag', async () => {
    const first = await t.app.inject({ method: 'GET', url: `${URL}?limit=3&offset=2` });
    for (let offset = 0; offset < 40; offset++) await get(`?limit=2&offset=${offset}`);
    const again = await t.app.inject({ method: 'GET', url: `${URL}?limit=3&offset=2` });
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it('a large page is compressed on request, decoding to the same bytes', async () => {
    const url = `${URL}?limit=10&offset=3`;
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);
    // The page's own ETag, marked as the gzip bytes.
    expect(gz.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-gzip"`);
  });
});

describe('bad paging parameters', () => {
  const many = Array.from({ length: 201 }, (_, i) => `h${i}`).join(',');
  it.each([
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=1.5', 'offset'],
    ['?offset=x', 'offset'],
    ['?hotkeys=', 'hotkeys'],
    ['?hotkeys=a,,b', 'hotkeys'],
    ['?hotkeys=bad%20key', 'hotkeys'],
    [`?hotkeys=${many}`, 'hotkeys'],
    ['?page=2', 'page'],
  ])('%s is a 400 naming %s', async (query, field) => {
    const res = await t.call({ method: 'GET', url: `${URL}${query}` });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.errors.map((e: Json) => e.path)).toContain(`querystring/${field}`);
  });
});
