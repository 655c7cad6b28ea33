// Warm whole leaderboards, weights and weights on chain answered ahead of the router (src/http/fastReads.ts): over
// a real socket, each answer is byte for byte what the router gives the same request (`inject`
// always goes through the router), `scoring_kept_reads_total` shows which way it went, and
// everything the router must see still reaches it.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, swebenchRun as run, type TestApp } from '../support/app.js';

let t: TestApp;
let base: string;

const post = (competition: string, runs: object[]) =>
  t.call({ method: 'POST', url: `/v1/competitions/${competition}/runs`, headers: admin, payload: { runs } });

async function seed(competition: string) {
  await seedCompetition(t, competition);
  await t.call({
    method: 'PUT',
    url: `/v1/competitions/${competition}/tasks`,
    headers: admin,
    payload: { tasks: [{ id: 'a', type: 'swebench_verified' }] },
  });
  // Enough miners for a leaderboard over 1 KiB: compressed when asked.
  const miners = Array.from({ length: 24 }, (_, i) => run(`m${i}`, `miner-${i}`, i % 3 !== 0, 50 + i));
  expect((await post(competition, [run('b1', null, true), run('b2', null, false), ...miners])).status).toBe(200);
  // For the weights on chain: every miner here is unregistered, so all of it goes to burnUid.
  const owner = '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM';
  const metagraph = { netuid: 1, block: 1, neurons: [{ uid: 0, hotkey: owner }] };
  expect(
    (
      await t.call({
        method: 'PUT',
        url: `/v1/competitions/${competition}/metagraph`,
        headers: admin,
        payload: metagraph,
      })
    ).status,
  ).toBe(200);
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request over a socket; the body as sent (not decompressed). */
function send(method: string, path: string, headers: Record<string, string> = {}, payload?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.pipe(
        new Writable({
          write(chunk: Buffer, _enc, done) {
            parts.push(chunk);
            done();
          },
          final(done) {
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) });
            done();
          },
        }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The same request through the router. */
async function routed(method: string, path: string, headers: Record<string, string> = {}, payload?: string) {
  const res = await t.app.inject({ method: method as 'GET', url: path, headers, payload });
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
}

/** What the two ways must agree on: status, body bytes, and every header but the connection's and the date. */
const comparable = (a: { status: number; headers: Record<string, unknown>; body: Buffer }) => ({
  status: a.status,
  body: a.body.toString('base64'),
  headers: Object.fromEntries(
    Object.entries(a.headers).filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
  ),
});

async function keptReads(): Promise<number> {
  // From a scraper's own address: a scrape counts against its address's rate limit (the tests' clients spend 127.0.0.1's).
  const text = (await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.250' })).body;
  return Number(/^scoring_kept_reads_total (\d+)$/m.exec(text)![1]);
}

async function listen() {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

describe('kept reads', () => {
  beforeEach(async () => {
    t = await testApp();
    await seed('c');
    await seed('other');
    await listen();
  });
  afterEach(async () => t.close());

  const bodies = ['leaderboard', 'weights', 'weights/chain'];

  it.each(bodies)('answers GET …/%s as the router does, whatever the coding and validators asked for', async (read) => {
    const path = `/v1/competitions/c/${read}`;
    // The first read computes (warm() ran before any data): the router's.
    const first = await routed('GET', path);
    expect(first.status).toBe(200);
    const plainTag = first.headers.etag as string;
    const brTag = (await routed('GET', path, { 'accept-encoding': 'br' })).headers.etag as string;
    // Bodies of 1 KiB or more are compressed when asked; the leaderboard here is one.
    expect(brTag !== plainTag).toBe(first.body.length >= 1024);
    if (read === 'leaderboard') expect(first.body.length).toBeGreaterThanOrEqual(1024);
    const variants: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'gzip, deflate, br, zstd' },
      { 'accept-encoding': 'gzip' },
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
      { 'accept-encoding': 'identity' },
      { 'if-none-match': plainTag },
      { 'if-none-match': `W/${plainTag}` },
      { 'if-none-match': brTag, 'accept-encoding': 'br' },
      { 'if-none-match': brTag },
      { 'if-none-match': '*' },
      { 'if-none-match': '"something-else"' },
    ];
    const before = await keptReads();
    for (const headers of variants) {
      const ahead = await send('GET', path, headers);
      expect(comparable(ahead), JSON.stringify(headers)).toEqual(comparable(await routed('GET', path, headers)));
    }
    expect(await keptReads()).toBe(before + variants.length);
    // Every status a variant gave is in the route's own series, counted once whichever way it went.
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const series = metrics
      .split('\n')
      .filter((l) =>
        l.startsWith(
          `http_request_duration_seconds_count{method="GET",route="/v1/competitions/:competitionId/${read}"`,
        ),
      );
    const counted = series.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    // Both ways: each variant twice, and the two first reads.
    expect(counted).toBe(2 * variants.length + 2);
    expect(series.map((l) => /status="(\d+)"/.exec(l)![1]).sort()).toEqual(['200', '304']);
  });

  it('leaves a read with a token to the router: an unknown one is a 401 there, a known one the same answer', async () => {
    const path = '/v1/competitions/c/leaderboard';
    const anonymous = await send('GET', path);
    const before = await keptReads();
    // Before: a token that names no one (a mistyped admin token) got the anonymous answer, unsaid.
    const unknown = await send('GET', path, { authorization: 'Bearer not-a-known-token' });
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.body.toString('utf8')).detail).toContain(
      'the bearer token is malformed, unknown or revoked',
    );
    const known = await send('GET', path, admin);
    expect(known.status).toBe(200);
    expect(known.body.equals(anonymous.body)).toBe(true);
    // Another scheme (a proxy's own Basic login) is not for this server: the anonymous answer.
    const basic = await send('GET', path, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(200);
    expect(await keptReads()).toBe(before);
  });

  it('leaves to the router what it does not answer, and the router answers it', async () => {
    await send('GET', '/v1/competitions/c/leaderboard');
    const before = await keptReads();
    const cases: [method: string, path: string, headers?: Record<string, string>, payload?: string][] = [
      ['GET', '/v1/competitions/c/leaderboard?limit=2'],
      ['GET', '/v1/competitions/c/leaderboard?stage=final'],
      ['GET', '/v1/competitions/c/leaderboard?stages=screening'],
      ['GET', '/v1/competitions/c/leaderboard/'],
      ['GET', '/v1/competitions/c/leaderboards'],
      ['GET', '/v1/competitions/%63/leaderboard'],
      ['GET', '/v1/competitions/nope/leaderboard'],
      ['GET', '/v1/competitions/c/x/leaderboard'],
      ['GET', '/v1/competitions//leaderboard'],
      ['HEAD', '/v1/competitions/c/leaderboard'],
      ['POST', '/v1/competitions/c/leaderboard', { 'content-type': 'application/json' }, '{}'],
      ['GET', '/v1/competitions/c/leaderboard', { 'content-type': 'application/json', 'content-length': '2' }, '{}'],
      ['GET', '/v1/competitions/c/miners/miner-1'],
    ];
    for (const [method, path, headers, payload] of cases) {
      const ahead = await send(method, path, headers, payload);
      const label = `${method} ${path}`;
      expect(comparable(ahead), label).toEqual(comparable(await routed(method, path, headers, payload)));
      expect(ahead.status, label).toBeLessThan(500);
    }
    expect(await keptReads()).toBe(before);
  });

  it('answers a read after a write from the new scores: the router computes them, then they are kept', async () => {
    const path = '/v1/competitions/c/leaderboard';
    const old = await send('GET', path);
    const before = await keptReads();
    // A miner far cheaper than the rest takes the lead.
    expect((await post('c', [run('cheap', 'cheap-miner', true, 1)])).status).toBe(200);
    const afterWrite = await send('GET', path, { 'if-none-match': old.headers.etag as string });
    expect(afterWrite.status).toBe(200);
    expect(afterWrite.headers.etag).not.toBe(old.headers.etag);
    const miners = (JSON.parse(afterWrite.body.toString()) as { miners: { hotkey: string }[] }).miners;
    expect(miners.map((m) => m.hotkey)).toContain('cheap-miner');
    expect(await keptReads()).toBe(before);
    const again = await send('GET', path, { 'if-none-match': afterWrite.headers.etag as string });
    expect(again.status).toBe(304);
    expect(await keptReads()).toBe(before + 1);
    // The other competition's kept body was not touched by the write.
    const other = await send('GET', '/v1/competitions/other/leaderboard');
    expect(comparable(other)).toEqual(comparable(await routed('GET', '/v1/competitions/other/leaderboard')));
  });

  it('times each of reads sent together on one connection once, whether it went out at once or waited its turn', async () => {
    const path = '/v1/competitions/c/leaderboard';
    await send('GET', path);
    const before = await keptReads();
    const timed = await durations('leaderboard');
    // Pipelined: the first answer goes out as it is made, the ones after it wait for it (Node
    // holds them until the socket is theirs), and each is timed as it is finished.
    const n = 6;
    const connection = rawConnection();
    connection.write(
      Array.from(
        { length: n },
        (_, i) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${i < n - 1 ? '' : 'Connection: close\r\n'}\r\n`,
      ).join(''),
    );
    expect((await connection.ended).match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(n);
    expect(await keptReads()).toBe(before + n);
    expect(await durations('leaderboard')).toBe(timed + n);
  });
});

/** Requests timed in a read's route series so far, every status. */
async function durations(read: string): Promise<number> {
  const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const prefix = `http_request_duration_seconds_count{method="GET",route="/v1/competitions/:competitionId/${read}"`;
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** A raw connection: what was written, and everything the server sent until it closed. */
function rawConnection() {
  const socket: Socket = connect(Number(new URL(base).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return { write: (text: string) => socket.write(text), ended };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kept reads while the server closes', () => {
  it('are left to the router, which answers 503 and closes the connection', async () => {
    t = await testApp();
    await seed('c');
    await listen();
    expect((await send('GET', '/v1/competitions/c/leaderboard')).status).toBe(200);
    // A write in flight holds the close open; a read begun on another connection completes during it.
    const batch = JSON.stringify({ runs: [run('late', 'miner-late', true)] });
    const writer = rawConnection();
    writer.write(
      `POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nAuthorization: ${admin.authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${batch.length}\r\nConnection: close\r\n\r\n` +
        batch.slice(0, 10),
    );
    const reader = rawConnection();
    reader.write('GET /v1/competitions/c/leader');
    await sleep(100);
    const closing = t.close();
    await sleep(100);
    reader.write('board HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await reader.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    writer.write(batch.slice(10));
    expect(await writer.ended).toMatch(/^HTTP\/1\.1 200 /);
    await closing;
  });
});

describe('kept reads and the settings that turn them off', () => {
  afterEach(async () => t.close());

  it('are not answered ahead when reads need a token: a read without one is refused', async () => {
    t = await testApp({ readsRequireToken: true });
    await seed('c');
    await listen();
    await routed('GET', '/v1/competitions/c/leaderboard', admin);
    const refused = await send('GET', '/v1/competitions/c/leaderboard');
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    const allowed = await send('GET', '/v1/competitions/c/leaderboard', admin);
    expect(allowed.status).toBe(200);
    expect(await keptReads()).toBe(0);
  });

  it('go through the router when the log writes a line for each read', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    t = await testApp({ logger: { level: 'debug', stream } });
    await seed('c');
    await listen();
    await send('GET', '/v1/competitions/c/weights');
    const again = await send('GET', '/v1/competitions/c/weights');
    expect(again.status).toBe(200);
    expect(await keptReads()).toBe(0);
    const logged = lines.filter((l) => l.includes('request completed') && l.includes('/v1/competitions/c/weights'));
    expect(logged).toHaveLength(2);
  });
});

describe('kept reads under the anonymous rate limit', () => {
  afterEach(async () => t.close());
  const path = '/v1/competitions/c/leaderboard';
  const remaining = (a: Answer | Awaited<ReturnType<typeof routed>>) => Number(a.headers['ratelimit-remaining']);
  /** Both ways agree but for the count left, which each request takes one from. */
  const sameBut = (a: Parameters<typeof comparable>[0]) => {
    const c = comparable(a);
    delete c.headers['ratelimit-remaining'];
    return c;
  };

  it('count against the address as the router does, and past the limit the router refuses them', async () => {
    t = await testApp({ door: { rateLimits: { anonymous: 6, validator: 0 } } });
    await seed('c');
    await listen();
    await routed('GET', path, admin); // the admin is not counted (off by default): computes the body
    const first = await send('GET', path);
    const second = await routed('GET', path);
    expect(sameBut(first)).toEqual(sameBut(second));
    expect(first.headers['ratelimit-limit']).toBe('6');
    expect([remaining(first), remaining(second)]).toEqual([5, 4]);
    for (let i = 0; i < 4; i++) expect((await send('GET', path)).status).toBe(200);
    expect(await keptReads()).toBe(5);
    const refused = await send('GET', path);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(await keptReads()).toBe(5);
  });

  it('are left to the router behind a trusted proxy, whose X-Forwarded-For names the client', async () => {
    t = await testApp({ door: { rateLimits: { anonymous: 2 } }, trustProxy: ['127.0.0.1'] });
    await seed('c');
    await listen();
    await routed('GET', path, admin);
    for (const client of ['203.0.113.1', '203.0.113.2'])
      for (let i = 0; i < 2; i++) expect((await send('GET', path, { 'x-forwarded-for': client })).status).toBe(200);
    expect((await send('GET', path, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(429);
    expect(await keptReads()).toBe(0);
  });
});
