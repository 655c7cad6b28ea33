// API.md "Conditional and partial reads": a client holding any form's ETag (plain, `-gzip`, `-br`,
// a fast form) gets a 304, and the 304 names the form a 200 to the same request would carry
// (RFC 9110 15.4.5), and varies as the 200 does. Snapshot reads make their body afresh for each
// request (no compressed form of it is made before the request is answered); score reads keep
// theirs: both are held to it, through the router and the fast path.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';
import { LAZY_FORM_BYTES } from '../../src/http/coding.js';

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

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
};
const params: Record<string, string> = { competitionId: 'c', taskId: 'a', hotkey: 'alice', seq: '1' };
/** Every JSON read documented with a 304 (a snapshot's input has one weak tag for every coding: conditional.test.ts). */
const conditionalReads = Object.entries(doc.paths).flatMap(([path, ops]) => {
  const op = ops.get;
  if (!op?.responses['304'] || !('application/json' in (op.responses['200']?.content ?? {}))) return [];
  return [path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]!)];
});

const codings = ['identity', 'gzip', 'br', 'gzip, deflate, br, zstd'];

describe('every read documented with a 304: a tag of any of its forms is current, whatever coding is asked for', () => {
  it('covers the reads the tester named, and they are compressed here (1 KiB and more)', async () => {
    await seed(40);
    const named = [
      'leaderboard',
      'miners/alice',
      'weights',
      'coverage',
      'snapshots',
      'snapshots/latest',
      'snapshots/1',
    ];
    for (const read of named) expect(conditionalReads).toContain(`/v1/competitions/c/${read}`);
    for (const read of named.filter((r) => r !== 'miners/alice')) {
      const url = `/v1/competitions/c/${read}`;
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers.etag, read).toMatch(/-gzip"$/);
    }
  });

  it.each(conditionalReads)('%s: GET and HEAD, any form held (weak, in a list), any coding asked', async (url) => {
    await seed(40);
    const get = (method: 'GET' | 'HEAD', headers: Record<string, string>) =>
      t.app.inject({ method, url, headers: { ...admin, ...headers } });
    // The tag of each form, as a read asking for each coding is sent it.
    const tags = new Map<string, string>();
    for (const coding of codings) {
      const res = await get('GET', { 'accept-encoding': coding });
      expect(res.statusCode, coding).toBe(200);
      tags.set(coding, res.headers.etag as string);
    }
    const plain = tags.get('identity')!;
    expect(plain).toMatch(/^"[A-Za-z0-9_-]+"$/);
    // Each answer, and what it should be: a 304 with no body that names the form a 200 to this
    // request carries (RFC 9110 15.4.5) and varies as it does.
    const got: string[] = [];
    const want: string[] = [];
    for (const tag of new Set(tags.values()))
      for (const coding of codings)
        for (const held of [tag, `W/${tag}`, `"nothing-here", ${tag}`])
          for (const method of ['GET', 'HEAD'] as const) {
            const res = await get(method, { 'accept-encoding': coding, 'if-none-match': held });
            const label = `${method} holding ${held}, accept-encoding ${coding}`;
            const { etag, vary } = res.headers;
            const encoded = res.headers['content-encoding'] ?? 'none';
            got.push(`${label}: ${res.statusCode} ${etag} ${String(vary)} ${encoded} ${res.rawPayload.length}`);
            want.push(`${label}: 304 ${tags.get(coding)} accept-encoding, authorization none 0`);
          }
    expect(got).toEqual(want);
    // A tag of another body, or one that begins with this body's digest but names no form of it, is not current.
    for (const other of [
      '"nothing-here"',
      `${plain.slice(0, -1)}-deflate"`,
      `${plain.slice(0, -1)}x"`,
      plain.slice(0, -1),
    ])
      expect((await get('GET', { 'accept-encoding': 'gzip', 'if-none-match': other })).statusCode, other).toBe(200);
  });

  it.each(['leaderboard', 'snapshots/1'])(
    '…/%s, a large body: a client holding the plain tag that asks for gzip before its gzip form is made gets a 304 naming the form it would be sent',
    async (read) => {
      await seed(200);
      const url = `/v1/competitions/c/${read}`;
      const plain = await t.app.inject({ method: 'GET', url });
      expect(plain.rawPayload.length).toBeGreaterThanOrEqual(LAZY_FORM_BYTES);
      const headers = { 'accept-encoding': 'gzip', 'if-none-match': plain.headers.etag as string };
      const held = await t.app.inject({ method: 'GET', url, headers });
      expect(held.statusCode).toBe(304);
      const sent = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      expect(sent.headers.etag).toMatch(/-gzip-(fast|pieces)"$/);
      expect(held.headers.etag).toBe(sent.headers.etag);
      // And the fast form is current for a client that now asks for br.
      const br = { 'accept-encoding': 'br', 'if-none-match': sent.headers.etag as string };
      expect((await t.app.inject({ method: 'GET', url, headers: br })).statusCode).toBe(304);
    },
  );

  it.each(['leaderboard', 'weights', 'weights/chain'])(
    '…/%s over a socket, a warm read answered ahead of the router (src/http/fastReads.ts): the gzip tag is current for every coding',
    async (read) => {
      await seed(40);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1/competitions/c/${read}`;
      const keptReads = async () =>
        Number(
          /^scoring_kept_reads_total (\d+)$/m.exec((await t.app.inject({ method: 'GET', url: '/metrics' })).body)![1],
        );
      const tags = new Map<string, string>();
      for (const coding of codings) {
        const res = await fetch(url, { headers: { 'accept-encoding': coding } });
        await res.arrayBuffer();
        tags.set(coding, res.headers.get('etag')!);
      }
      const gzip = tags.get('gzip')!;
      expect(gzip).toMatch(/-gzip"$/);
      const before = await keptReads();
      for (const coding of codings) {
        const res = await fetch(url, { headers: { 'accept-encoding': coding, 'if-none-match': gzip } });
        expect(res.status, coding).toBe(304);
        expect(res.headers.get('etag'), coding).toBe(tags.get(coding));
        expect(res.headers.get('vary'), coding).toContain('accept-encoding');
      }
      expect(await keptReads()).toBe(before + codings.length);
    },
  );
});

describe("a snapshot's input document (one weak tag for every coding)", () => {
  it('its 304 varies on Accept-Encoding as its 200 does, whatever the request asks for', async () => {
    await seed(40);
    const url = '/v1/competitions/c/snapshots/1/input';
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toContain('accept-encoding');
    const tag = gz.headers.etag as string;
    for (const coding of ['gzip', 'br', 'identity'])
      for (const method of ['GET', 'HEAD'] as const) {
        const label = `${method} ${coding}`;
        const plain = await t.app.inject({ method, url, headers: { 'accept-encoding': coding } });
        expect(plain.headers.vary, label).toContain('accept-encoding');
        const held = await t.app.inject({ method, url, headers: { 'accept-encoding': coding, 'if-none-match': tag } });
        expect(held.statusCode, label).toBe(304);
        expect(held.headers.etag, label).toBe(tag);
        expect(held.headers.vary, label).toContain('accept-encoding');
      }
  });
});
