// Conditional and compressed score reads (API.md 1.1): strong ETags that change exactly when the
// body does, 304 for a client that holds the body, br and gzip on request.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';
import { LAZY_FORM_BYTES } from '../../src/http/coding.js';

let t: TestApp;
const post = (competition: string, runs: object[]) =>
  t.call({ method: 'POST', url: `/v1/competitions/${competition}/runs`, headers: admin, payload: { runs } });
const reads = ['/leaderboard', '/weights', '/miners/alice', '/tasks/a'];

beforeEach(async () => {
  t = await testApp();
  for (const c of ['c', 'other']) {
    await seedCompetition(t, c);
    await t.call({
      method: 'PUT',
      url: `/v1/competitions/${c}/tasks`,
      headers: admin,
      payload: { tasks: [{ id: 'a', type: 'swebench_verified' }] },
    });
    expect((await post(c, [run('b1', null, true), run('b2', null, true), run('m1', 'alice', true)])).status).toBe(200);
  }
});
afterEach(async () => t.close());

describe.each(reads)('GET …%s', (path) => {
  const url = `/v1/competitions/c${path}`;

  it('304 with no body on an unchanged read; 200 and a new ETag after a write that changes it', async () => {
    const first = await t.app.inject({ method: 'GET', url });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);

    // A cheaper miner takes the lead: every one of these bodies changes.
    expect((await post('c', [run('m2', 'bob', true, 10)])).status).toBe(200);
    const changed = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body).not.toBe(first.body);
  });

  it('keeps its ETag after a write to another competition', async () => {
    const etag = (await t.app.inject({ method: 'GET', url })).headers.etag;
    expect((await post('other', [run('m2', 'alice', false)])).status).toBe(200);
    const after = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag as string } });
    expect(after.statusCode).toBe(304);
  });

  it('sends br or gzip when asked, decoding to the same bytes', async () => {
    const plain = await t.app.inject({ method: 'GET', url });
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': coding } });
      // Bodies under 1 kB go out as they are.
      if (plain.rawPayload.length < 1024) {
        expect(res.headers['content-encoding']).toBeUndefined();
        continue;
      }
      expect(res.headers['content-encoding']).toBe(coding);
      expect(decode(res.rawPayload).toString('utf8')).toBe(plain.body);
      // Other bytes, another strong ETag (RFC 9110 8.8.1): the plain one with the coding appended.
      const etag = res.headers.etag as string;
      expect(etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-${coding}"`);
      const held = { 'accept-encoding': coding, 'if-none-match': etag };
      expect((await t.app.inject({ method: 'GET', url, headers: held })).statusCode).toBe(304);
      // Any form's tag is current (API.md), and the 304 names the form this request is sent.
      const plainHeld = { 'accept-encoding': coding, 'if-none-match': plain.headers.etag as string };
      const current = await t.app.inject({ method: 'GET', url, headers: plainHeld });
      expect(current.statusCode).toBe(304);
      expect(current.headers.etag).toBe(etag);
    }
  });
});

describe('history reads (API.md 1.1: conditional like the score reads)', () => {
  const snapshot = async () =>
    expect(
      (await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })).status,
    ).toBe(201);

  it.each(['/miners/alice/history', '/weights/history'])(
    '…%s: 304 while no snapshot is taken, 200 and a new ETag after one',
    async (path) => {
      const url = `/v1/competitions/c${path}`;
      await snapshot();
      const first = await t.app.inject({ method: 'GET', url });
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      // A run changes the live scores, not the history.
      expect((await post('c', [run('m2', 'bob', true, 10)])).status).toBe(200);
      expect((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
      await snapshot();
      const after = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(etag);
      expect(after.json().history.length).toBe(first.json().history.length + 1);
    },
  );
});

describe('snapshots (history reads)', () => {
  const take = async () =>
    (await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })).body as {
      seq: number;
      inputDigest: string;
    };

  it('the list: 304 while no snapshot is taken, 200 and a new ETag after one', async () => {
    const url = '/v1/competitions/c/snapshots';
    await take();
    const first = await t.app.inject({ method: 'GET', url });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await post('c', [run('l1', 'bob', true, 10)])).status).toBe(200);
    expect((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    await take();
    const after = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.json().snapshots.length).toBe(first.json().snapshots.length + 1);
  });

  it('an input document: its inputDigest as a weak ETag, 304 for every coding, whatever is written after', async () => {
    const { seq, inputDigest } = await take();
    const url = `/v1/competitions/c/snapshots/${seq}/input`;
    const first = await t.app.inject({ method: 'GET', url });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBe(`W/"${inputDigest}"`);
    expect(createHash('sha256').update(first.rawPayload).digest('hex')).toBe(inputDigest);
    expect((await post('c', [run('l2', 'bob', true, 10)])).status).toBe(200);
    await take();
    for (const held of [`W/"${inputDigest}"`, `"${inputDigest}"`, `"other", W/"${inputDigest}"`]) {
      for (const coding of ['identity', 'br']) {
        const res = await t.app.inject({
          method: 'GET',
          url,
          headers: { 'if-none-match': held, 'accept-encoding': coding },
        });
        expect(res.statusCode, `${held} ${coding}`).toBe(304);
        expect(res.rawPayload.length).toBe(0);
      }
    }
    const other = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"other"' } });
    expect(other.statusCode).toBe(200);
    expect(other.body).toBe(first.body);
  });
});

it('a POST that sends a kept body (a new snapshot) is not a read: If-None-Match does not turn it into a 304', async () => {
  const res = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/snapshots',
    headers: { ...admin, 'if-none-match': '*' },
    payload: {},
  });
  expect(res.status).toBe(201);
  expect(res.body.seq).toBe(1);
});

describe('every other response is compressed when asked too', () => {
  beforeEach(async () => {
    const runs = Array.from({ length: 40 }, (_, i) => run(`y${i}`, `miner-${i}`, i % 3 === 0));
    expect((await post('c', runs)).status).toBe(200);
  });

  it.each([
    ['a list (runs)', '/v1/competitions/c/runs?limit=100'],
    ['a stream (the runs export)', '/v1/competitions/c/runs/export?format=ndjson'],
    ['a stream (CSV)', '/v1/competitions/c/runs/export?format=csv'],
  ])('%s: br and gzip decode to the plain bytes', async (_what, url) => {
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': coding } });
      expect(res.headers['content-encoding']).toBe(coding);
      expect(res.headers.vary).toContain('accept-encoding');
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length);
      expect(decode(res.rawPayload).toString('utf8')).toBe(plain.body);
    }
  });

  it('a score read is compressed once: decoding it once gives the JSON', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/competitions/c/leaderboard',
      headers: { 'accept-encoding': 'br' },
    });
    expect(res.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(res.rawPayload).toString('utf8')).miners.length).toBeGreaterThan(40);
  });

  it('a small body and a body not asked to be compressed go out as they are', async () => {
    const small = await t.app.inject({
      method: 'GET',
      url: '/v1/competitions/c/runs?limit=1',
      headers: { 'accept-encoding': 'br' },
    });
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json().runs.length).toBe(1);
    const parquet = await t.app.inject({
      method: 'GET',
      url: '/v1/competitions/c/runs/export?format=parquet',
      headers: { 'accept-encoding': 'br' },
    });
    expect(parquet.headers['content-encoding']).toBeUndefined();
    expect(parquet.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
  });
});

it('compresses a large leaderboard and honours q=0', async () => {
  const runs = Array.from({ length: 60 }, (_, i) => run(`x${i}`, `miner-${String(i).padStart(3, '0')}`, i % 2 === 0));
  expect((await post('c', runs)).status).toBe(200);
  const url = '/v1/competitions/c/leaderboard';
  const plain = await t.app.inject({ method: 'GET', url });
  expect(plain.rawPayload.length).toBeGreaterThan(1024);
  const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip;q=0.5, br' } });
  expect(br.headers['content-encoding']).toBe('br');
  expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
  expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(plain.body);
  const noBr = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br;q=0, gzip' } });
  expect(noBr.headers['content-encoding']).toBe('gzip');
  const none = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
  expect(none.headers['content-encoding']).toBeUndefined();
  expect(none.body).toBe(plain.body);
});

it('an unknown query parameter is a 400 naming it', async () => {
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard?stage=screener_1' });
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ path: 'querystring/stage', message: 'unknown field' }]);
});

describe('the OpenAPI document says which reads are conditional, and they are the ones that are', () => {
  const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string }[] }>>;
  };
  const params: Record<string, string> = { competitionId: 'c', taskId: 'a', hotkey: 'alice', runId: 'm1', seq: '1' };
  // JSON reads that can be asked with nothing but these parameters (streams, files and admin-only reads aside).
  const reads = Object.entries(doc.paths).flatMap(([path, ops]) => {
    const op = ops.get;
    if (!op || !('application/json' in ((op.responses['200'] as { content?: object })?.content ?? {}))) return [];
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    if (!names.every((n) => n in params)) return [];
    return [
      { path, url: path.replace(/\{(\w+)\}/g, (_, n: string) => params[n]!), conditional: '304' in op.responses },
    ];
  });

  it('every JSON read documented with a 304 sends an ETag and answers If-None-Match; no other sends one', async () => {
    expect(
      (await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })).status,
    ).toBe(201);
    // The metagraph and the weights on chain are there once one is recorded.
    const metagraph = {
      netuid: 1,
      block: 1,
      neurons: [{ uid: 0, hotkey: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM' }],
    };
    expect(
      (await t.call({ method: 'PUT', url: '/v1/competitions/c/metagraph', headers: admin, payload: metagraph })).status,
    ).toBe(200);
    // The judge configuration in force is there once one is set (its votes: the competition's judgeVotes).
    const { judgeVotes } = (await t.call({ method: 'GET', url: '/v1/competitions/c', headers: admin })).body as {
      judgeVotes: number;
    };
    const judge = {
      model: 'judge-a',
      reasoningEffort: 'high',
      votes: judgeVotes,
      temperature: 0,
      promptTemplate: 'Answer of {answer_date}: {answer}',
      outputSchema: { type: 'object' },
    };
    expect(
      (await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: judge })).status,
    ).toBe(200);
    expect(reads.filter((r) => r.conditional).length).toBeGreaterThanOrEqual(10);
    for (const { path, url, conditional } of reads) {
      const first = await t.app.inject({ method: 'GET', url, headers: admin });
      expect(first.statusCode, path).toBe(200);
      if (!conditional) {
        expect(first.headers.etag, path).toBeUndefined();
        continue;
      }
      expect(first.headers.etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await t.app.inject({
        method: 'GET',
        url,
        headers: { ...admin, 'if-none-match': first.headers.etag as string },
      });
      expect(again.statusCode, path).toBe(304);
    }
  });
});

describe('a large body (LAZY_FORM_BYTES and over)', () => {
  const url = '/v1/competitions/c/leaderboard';
  const large = async () => {
    const runs = Array.from({ length: 200 }, (_, i) =>
      run(`x${i}`, `miner-${String(i).padStart(3, '0')}`, i % 2 === 0),
    );
    expect((await post('c', runs)).status).toBe(200);
  };
  /** Reads until the kept form is sent (it is made on libuv's threads), at most a second. */
  const untilKept = async (headers: Record<string, string>) => {
    for (let i = 0; i < 200; i++) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      if (!/-(fast|pieces)"$/.test(res.headers.etag as string)) return res;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error('the kept form was never made');
  };

  it('goes out put together from deflated pieces while its kept form is made off the request path, then in that form', async () => {
    await large();
    const headers = { 'accept-encoding': 'gzip' };
    const first = await t.app.inject({ method: 'GET', url, headers });
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.rawPayload.length).toBeGreaterThanOrEqual(LAZY_FORM_BYTES);
    expect(plain.headers['content-encoding']).toBeUndefined();
    // Compressed as asked (API.md), under an ETag of its own bytes.
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.vary).toContain('accept-encoding');
    expect(first.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-gzip-pieces"`);
    expect(first.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(first.rawPayload).toString('utf8')).toBe(plain.body);

    const gz = await untilKept(headers);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-gzip"`);
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);
    // A client holding any form is told it is current, with the tag of the form it would be sent (RFC 9110 15.4.5).
    for (const held of [plain.headers.etag, first.headers.etag, gz.headers.etag] as string[]) {
      const again = await t.app.inject({ method: 'GET', url, headers: { ...headers, 'if-none-match': held } });
      expect(again.statusCode).toBe(304);
      expect(again.headers.etag).toBe(gz.headers.etag);
    }
  });

  it('a list with none before it: a br client gets brotli at its fastest, a gzip client the pieces; either is current', async () => {
    await large();
    const browser = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    const first = await t.app.inject({ method: 'GET', url, headers: browser });
    const plain = await t.app.inject({ method: 'GET', url });
    const tag = (plain.headers.etag as string).slice(0, -1);
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers.etag).toBe(`${tag}-br-fast"`);
    expect(brotliDecompressSync(first.rawPayload).toString('utf8')).toBe(plain.body);
    const gzipOnly = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gzipOnly.headers['content-encoding']).toBe('gzip');
    expect(gzipOnly.headers.etag).toBe(`${tag}-gzip-pieces"`);
    expect(gunzipSync(gzipOnly.rawPayload).toString('utf8')).toBe(plain.body);
    const br = await untilKept(browser);
    expect(br.headers.etag).toBe(`${tag}-br"`);
    // A browser holding either fast form is told it is current, with the tag of the form it would be sent.
    for (const held of [first.headers.etag, gzipOnly.headers.etag] as string[]) {
      const again = await t.app.inject({ method: 'GET', url, headers: { ...browser, 'if-none-match': held } });
      expect(again.statusCode).toBe(304);
      expect(again.headers.etag).toBe(br.headers.etag);
    }
    // deflate is not a coding the server sends: a client that takes only it gets the plain body.
    const deflateOnly = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'deflate' } });
    expect(deflateOnly.headers['content-encoding']).toBeUndefined();
    expect(deflateOnly.headers.etag).toBe(plain.headers.etag);
    expect(deflateOnly.body).toBe(plain.body);
  });

  it("a real client (fetch) decodes the pieces' gzip form to the plain body, cold after a write", async () => {
    await large();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address() as { port: number };
    const get = () => fetch(`http://127.0.0.1:${address.port}${url}`);
    for (const miner of ['alice', 'bob']) {
      const res = await get();
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(res.headers.get('etag')).toMatch(/-gzip-pieces"$/);
      expect(await res.text()).toBe((await t.app.inject({ method: 'GET', url })).body);
      // One entry changes: the next read reuses the other pieces.
      expect((await post('c', [run(`y-${miner}`, miner, false)])).status).toBe(200);
    }
  });

  it('one read makes no kept form: a second read starts it', async () => {
    await large();
    const headers = { 'accept-encoding': 'br' };
    const first = await t.app.inject({ method: 'GET', url, headers });
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers.etag).toMatch(/-br-fast"$/);
    await new Promise((r) => setTimeout(r, 50));
    // Still the fast form: one read asks for nothing to be made.
    const second = await t.app.inject({ method: 'GET', url, headers });
    expect(second.headers.etag).toBe(first.headers.etag);
    const br = await untilKept(headers);
    expect(br.headers.etag).toMatch(/-br"$/);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString('utf8')).miners.length).toBeGreaterThan(200);
  });
});
