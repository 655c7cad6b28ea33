// API.md "Conditional and partial reads": a client holding any form's ETag (plain, `-gzip`, `-br`,
// a fast form) gets a 304, and the 304 names the form a 200 to the same request would carry
// (RFC 9110 15.4.5), and varies as the 200 does. Snapshot reads make their body afresh for each
// request (no compressed form of it is made before the request is answered); score reads keep
// theirs: both are held to it, through the router and the fast path.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';
import { LAZY_FORM_BYTES } from '../../src/http/representation.js';

let t: TestApp;
const post = (runs: object[]) =>
  t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });

/** The competition with `miners` miners and a metagraph; then three snapshots (seq 1 to 3), enough for a list of 1 KiB. */
async function seed(miners: number) {
  await seedCompetition(t, 'c');
  const tasks = { tasks: [{ id: 'a', type: 'swebench_verified' }] };
  const put = await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks });
  expect(put.status).toBe(200);
  const runs = Array.from({ length: miners }, (_, i) =>
    run(`m${i}`, `miner-${String(i).padStart(3, '0')}`, i % 3 !== 0, 50 + i),
  );
  const baseline = [run('b1', null, true), run('b2', null, false), run('al', 'alice', true)];
  expect((await post([...baseline, ...runs])).status).toBe(200);
  const metagraph = {
    netuid: 1,
    block: 1,
    neurons: [{ uid: 0, hotkey: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM' }],
  };
  const recorded = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/metagraph',
    headers: admin,
    payload: metagraph,
  });
  expect(recorded.status).toBe(200);
  for (let i = 0; i < 3; i++) {
    const taken = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
    expect(taken.status).toBe(201);
  }
}

beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

describe('snapshot reads: the tag a compressed read was sent is current when sent back with the same Accept-Encoding', () => {
  const reads = ['snapshots', 'snapshots/latest', 'snapshots/1'];

  it.each(reads)('…/%s', async (read) => {
    await seed(40);
    const url = `/v1/competitions/c/${read}`;
    for (const coding of ['gzip', 'br', 'gzip, deflate, br, zstd']) {
      const first = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': coding } });
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-encoding'], coding).toBe(coding === 'gzip' ? 'gzip' : 'br');
      const tag = first.headers.etag as string;
      expect(tag).toMatch(/-(gzip|br)"$/);
      for (const method of ['GET', 'HEAD'] as const) {
        const label = `${method} ${coding}`;
        const again = await t.app.inject({ method, url, headers: { 'accept-encoding': coding, 'if-none-match': tag } });
        expect(again.statusCode, label).toBe(304);
        expect(again.rawPayload.length, label).toBe(0);
        expect(again.headers.etag, label).toBe(tag);
        expect(again.headers.vary, label).toContain('accept-encoding');
      }
    }
  });

  it('a large snapshot (sent in its fast form each time): that tag is current too', async () => {
    await seed(200);
    const url = '/v1/competitions/c/snapshots/1';
    const headers = { 'accept-encoding': 'gzip' };
    const first = await t.app.inject({ method: 'GET', url, headers });
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.rawPayload.length).toBeGreaterThanOrEqual(LAZY_FORM_BYTES);
    const tag = first.headers.etag as string;
    expect(tag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-gzip-fast"`);
    const again = await t.app.inject({ method: 'GET', url, headers: { ...headers, 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(tag);
  });
});
