// The limits at the door in the app (API.md 1.2, docs/SECURITY.md "Limits at the door"): rate
// limits per address and per validator with their headers, the admin not counted unless set;
// security headers on every kind of answer; the /docs redirect; the connection and event-stream
// caps over real sockets. test/reliability/door.test.ts meets the body limits through the real
// server process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import dashboard from '../../src/plugins/dashboard.js';
import { securityHeadersPlugin } from '../../src/plugins/securityHeaders.js';
import { signRequest } from '../../src/client/sign.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { ALICE, BOB, SERVER } from '../signatures/fixtures.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const problemWithRetry = (res: { status: number; headers: Record<string, unknown>; body: unknown }) => {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.body).toMatchObject({ type: 'urn:swe-scoring:problem:too-many-requests', status: 429 });
};

describe('rate limits', () => {
  it('per client address for anonymous reads: RateLimit-* headers, then a 429 problem with Retry-After', async () => {
    t = await testApp({ door: { rateLimits: { anonymous: 3 } } });
    await seedCompetition(t, 'c');
    const read = (remoteAddress: string) => t!.call({ method: 'GET', url: '/v1/competitions/c', remoteAddress });
    const first = await read('198.51.100.7');
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({
      'ratelimit-limit': '3',
      'ratelimit-remaining': '2',
      'ratelimit-reset': '60',
    });
    await read('198.51.100.7');
    await read('198.51.100.7');
    const refused = await read('198.51.100.7');
    problemWithRetry(refused);
    expect((refused.body as { detail: string }).detail).toContain('SCORING_RATE_LIMIT_ANONYMOUS');
    // Another address has its own count; open routes are not counted.
    expect((await read('198.51.100.8')).status).toBe(200);
    const health = await t.call({ method: 'GET', url: '/healthz', remoteAddress: '198.51.100.7' });
    expect(health.status).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
  });

  it('/metrics, open as it is, is counted against the address (each scrape is made anew); /healthz is not', async () => {
    t = await testApp({ door: { rateLimits: { anonymous: 2 } } });
    const get = (url: string) => t!.call({ method: 'GET', url, remoteAddress: '198.51.100.9' });
    const first = await get('/metrics');
    expect([first.status, first.headers['ratelimit-remaining']]).toEqual([200, '1']);
    expect((await get('/metrics')).status).toBe(200);
    problemWithRetry(await get('/metrics'));
    // The same address's other open routes, and another address's scrape, are unaffected.
    for (const url of ['/healthz', '/readyz', '/openapi.json'])
      expect([url, (await get(url)).status]).toEqual([url, 200]);
    const other = await t.call({ method: 'GET', url: '/metrics', remoteAddress: '198.51.100.10' });
    expect(other.status).toBe(200);
  });

  it('per validator, whatever its address; the admin is not counted by default', async () => {
    t = await testApp({ door: { rateLimits: { anonymous: 100, validator: 2 } } });
    const { validatorKey } = await seedCompetition(t, 'c');
    const asValidator = (remoteAddress: string) =>
      t!.call({
        method: 'GET',
        url: '/v1/competitions/c',
        headers: { authorization: `Bearer ${validatorKey}` },
        remoteAddress,
      });
    expect((await asValidator('192.0.2.1')).headers['ratelimit-limit']).toBe('2');
    expect((await asValidator('192.0.2.2')).status).toBe(200);
    const refused = await asValidator('192.0.2.3');
    problemWithRetry(refused);
    expect((refused.body as { detail: string }).detail).toContain('SCORING_RATE_LIMIT_VALIDATOR');
    // A write is counted too, and refused before it is stored.
    const runs = { runs: [{ runId: 'r', taskId: 'x', kind: 'baseline', resolved: true }] };
    const write = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: { authorization: `Bearer ${validatorKey}` },
      payload: runs,
    });
    expect(write.status).toBe(429);
    // The same address without the key is anonymous, with a count of its own.
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c', remoteAddress: '192.0.2.3' })).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const res = await t.call({ method: 'GET', url: '/v1/competitions/c', headers: admin });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it("counts a signed validator's write once its signature is checked: a forged one spends nothing", async () => {
    t = await testApp({ door: { rateLimits: { validator: 2 } }, signatures: { serverAddress: SERVER.address } });
    await seedCompetition(t, 'c');
    const tasks = { tasks: [{ id: 't1', type: 'swebench_verified' }] };
    await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks });
    const v = { name: 'signer', hotkey: ALICE.address };
    expect((await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: v })).status).toBe(201);
    const post = (runId: string, signer = ALICE) => {
      const payload = JSON.stringify({
        runs: [{ runId, taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
      });
      const headers = signRequest({ key: signer, body: payload, signedFor: SERVER.address });
      // Bob signs, claiming to be Alice.
      if (signer !== ALICE) headers['Epistula-Signed-By'] = ALICE.address;
      return t!.call({
        method: 'POST',
        url: '/v1/competitions/c/runs',
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
    };
    for (let i = 0; i < 3; i++) expect((await post(`forged-${i}`, BOB)).status).toBe(401);
    const first = await post('r1');
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1' });
    expect((await post('r2')).status).toBe(200);
    problemWithRetry(await post('r3'));
    expect(await t.count('runs')).toBe(2);
  });

  it("refuses an address's signed requests before sr25519 once its failed checks pass SCORING_RATE_LIMIT_SIGNATURE_FAILURES", async () => {
    t = await testApp({
      door: { rateLimits: { signatureFailures: 3 } },
      signatures: { serverAddress: SERVER.address },
    });
    await seedCompetition(t, 'c');
    const tasks = { tasks: [{ id: 't1', type: 'swebench_verified' }] };
    await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks });
    const v = { name: 'signer', hotkey: ALICE.address };
    expect((await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: v })).status).toBe(201);
    const signed = (runId: string, opts: { signer?: typeof ALICE; now?: number } = {}) => {
      const payload = JSON.stringify({
        runs: [{ runId, taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
      });
      const headers = signRequest({
        key: opts.signer ?? ALICE,
        body: payload,
        signedFor: SERVER.address,
        now: opts.now,
      });
      // Alice's hotkey is public; Bob signs, claiming to be her.
      headers['Epistula-Signed-By'] = ALICE.address;
      return { 'content-type': 'application/json', ...headers, payload };
    };
    const send = ({ payload, ...headers }: ReturnType<typeof signed>, remoteAddress: string) =>
      t!.call({ method: 'POST', url: '/v1/competitions/c/runs', headers, payload, remoteAddress });
    const reason = (res: { body: unknown }) => (res.body as { type: string }).type.split(':').pop();

    // Refusals on the headers alone cost nothing and are not counted: stale ones, say.
    for (let i = 0; i < 5; i++)
      expect(reason(await send(signed(`stale-${i}`, { now: Date.now() - 3_600_000 }), '192.0.2.1'))).toBe(
        'signature-stale',
      );
    // Two forged signatures and a replayed request: three checks that ran sr25519 and failed.
    const kept = signed('r1');
    expect((await send(kept, '192.0.2.1')).status).toBe(200);
    const failed = [
      await send(signed('f1', { signer: BOB }), '192.0.2.1'),
      await send(signed('f2', { signer: BOB }), '192.0.2.1'),
      await send(kept, '192.0.2.1'),
    ];
    expect(failed.map((res) => [res.status, reason(res)])).toEqual([
      [401, 'signature-invalid'],
      [401, 'signature-invalid'],
      [401, 'signature-replayed'],
    ]);
    // Past the budget, the address's signed requests are refused on their headers, a good one's too.
    for (const attempt of [signed('f3', { signer: BOB }), signed('r2')]) {
      const res = await send(attempt, '192.0.2.1');
      expect(res.status).toBe(429);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.body).toMatchObject({ type: 'urn:swe-scoring:problem:too-many-requests', status: 429 });
      expect((res.body as { detail: string }).detail).toContain('SCORING_RATE_LIMIT_SIGNATURE_FAILURES');
    }
    // Another address, and bearer requests from the same one, are not affected.
    expect((await send(signed('r3'), '192.0.2.2')).status).toBe(200);
    const bearer = await t.call({
      method: 'GET',
      url: '/v1/competitions/c',
      headers: admin,
      remoteAddress: '192.0.2.1',
    });
    expect(bearer.status).toBe(200);
    expect(await t.count('runs')).toBe(2);
  });

  it('refuses a signed body of a type, coding or charset the route does not take on its headers: unread, its signature unchecked, nothing counted or spent', async () => {
    t = await testApp({
      door: { rateLimits: { signatureFailures: 2 } },
      signatures: { serverAddress: SERVER.address },
    });
    await seedCompetition(t, 'c');
    const v = { name: 'signer', hotkey: ALICE.address };
    expect((await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: v })).status).toBe(201);
    const payload = JSON.stringify({ runs: [] });
    // Alice's hotkey is public; Bob signs, claiming to be her. Read and then refused for its type,
    // such a body cost the server its bytes and was never counted against the address.
    const forged = (contentType: string, extra: Record<string, string> = {}) => {
      const headers = signRequest({ key: BOB, body: payload, signedFor: SERVER.address });
      headers['Epistula-Signed-By'] = ALICE.address;
      return { 'content-type': contentType, ...headers, ...extra };
    };
    const attempts = [
      ['/v1/competitions/c/runs', forged('application/json', { 'content-encoding': 'gzip' })],
      ['/v1/competitions/c/runs', forged('application/json; charset=latin1')],
      ['/v1/score', forged('application/json')],
    ] as const;
    for (let round = 0; round < 2; round++)
      for (const [url, headers] of attempts) {
        const res = await t.call({ method: 'POST', url, headers, payload, remoteAddress: '192.0.2.20' });
        expect([url, res.status]).toEqual([url, 415]);
      }
    // Nothing counted: the same address's forged JSON batch is checked, and refused as forged.
    const checked = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: forged('application/json'),
      payload,
      remoteAddress: '192.0.2.20',
    });
    expect([checked.status, (checked.body as { type: string }).type.split(':').pop()]).toEqual([
      401,
      'signature-invalid',
    ]);
    // A good signature on a body of the wrong coding: a 415 too, and its uuid not used up.
    const good = signRequest({ key: ALICE, body: payload, signedFor: SERVER.address });
    const gzip = { 'content-type': 'application/json', 'content-encoding': 'gzip', ...good };
    expect((await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: gzip, payload })).status).toBe(415);
    expect(await t.count('signature_nonces')).toBe(0);
  });

  it('counts failed checks of signed requests to open routes and to no route against the same budget', async () => {
    t = await testApp({
      door: { rateLimits: { signatureFailures: 2 } },
      signatures: { serverAddress: SERVER.address },
    });
    const v = { name: 'signer', hotkey: ALICE.address };
    expect((await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: v })).status).toBe(201);
    const forged = () => {
      const headers = signRequest({ key: BOB, body: '', signedFor: SERVER.address });
      headers['Epistula-Signed-By'] = ALICE.address;
      return headers;
    };
    // Answered as unsigned requests are (an open route asks for no rights), the checks failing.
    const health = await t.call({ method: 'GET', url: '/healthz', headers: forged(), remoteAddress: '192.0.2.9' });
    expect(health.status).toBe(200);
    const lost = await t.call({ method: 'GET', url: '/v1/nowhere', headers: forged(), remoteAddress: '192.0.2.9' });
    expect(lost.status).toBe(404);
    // The budget is spent: a good signature from that address is refused on its headers.
    const good = signRequest({ key: ALICE, body: '', signedFor: SERVER.address });
    const read = await t.call({ method: 'GET', url: '/v1/competitions', headers: good, remoteAddress: '192.0.2.9' });
    expect(read.status).toBe(429);
    const elsewhere = await t.call({
      method: 'GET',
      url: '/v1/competitions',
      headers: good,
      remoteAddress: '192.0.2.10',
    });
    expect(elsewhere.status).toBe(200);
  });

  it('counts the admin when SCORING_RATE_LIMIT_ADMIN is set', async () => {
    t = await testApp({ door: { rateLimits: { admin: 1 } } });
    expect((await t.call({ method: 'GET', url: '/v1/competitions', headers: admin })).status).toBe(200);
    problemWithRetry(await t.call({ method: 'GET', url: '/v1/competitions', headers: admin }));
  });
});

describe('security headers', () => {
  it('nosniff and the API policy on API answers, errors before and after routing, and /docs', async () => {
    t = await testApp();
    const answers = {
      read: await t.call({ method: 'GET', url: '/v1/competitions' }),
      notFound: await t.call({ method: 'GET', url: '/v1/competitions/nope' }),
      noRoute: await t.call({ method: 'GET', url: '/no/such/route' }),
      unauthorized: await t.call({ method: 'POST', url: '/v1/validators', payload: { name: 'x' } }),
      badEscape: await t.call({ method: 'GET', url: '/v1/competitions/%E0%A4%A' }),
      health: await t.call({ method: 'GET', url: '/healthz' }),
      docs: await t.call({ method: 'GET', url: '/docs/' }),
      docsScript: await t.call({ method: 'GET', url: '/docs/static/swagger-initializer.js' }),
      document: await t.call({ method: 'GET', url: '/openapi.json' }),
    };
    for (const [name, res] of Object.entries(answers))
      expect(res.headers['x-content-type-options'], name).toBe('nosniff');
    expect(answers.badEscape.status).toBe(400);
    expect(answers.read.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    // Swagger UI keeps its own policy, which lets its scripts and styles load.
    expect(answers.docs.status).toBe(200);
    expect(answers.docs.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answers.docs.headers['content-security-policy']).not.toContain("default-src 'none'");
    // Inline styles for its bundle's style attributes (src/plugins/docs.ts, docsStyles); never inline scripts.
    expect(answers.docs.headers['content-security-policy']).toContain("style-src 'self' 'unsafe-inline';");
    expect(answers.docs.headers['content-security-policy']).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  });

  it('the dashboard keeps its own strict policy on index.html, and every file is nosniff', async () => {
    const root = mkdtempSync(join(tmpdir(), 'door-dashboard-'));
    try {
      mkdirSync(join(root, 'assets'));
      writeFileSync(join(root, 'index.html'), '<!doctype html><title>dashboard</title>');
      writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
      const app = Fastify();
      await app.register(securityHeadersPlugin);
      await app.register(dashboard, { root });
      const index = await app.inject({ url: '/' });
      expect(index.headers['content-security-policy']).toContain("script-src 'self'");
      expect(index.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(index.headers['x-content-type-options']).toBe('nosniff');
      const asset = await app.inject({ url: '/assets/index-abc.js' });
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      await app.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('/docs', () => {
  it('static/index.html redirects to /docs/, with or without a query, and /docs/ answers', async () => {
    t = await testApp();
    for (const url of ['/docs/static/index.html', '/docs/static/index.html?x=1', '/docs/static/index.html?a=b&c']) {
      const res = await t.call({ method: 'GET', url });
      expect(res.status, url).toBe(302);
      expect(res.headers.location, url).toBe('/docs/');
    }
    expect((await t.call({ method: 'GET', url: '/docs/' })).status).toBe(200);
  });
});

/** A socket to the listening app, with what it received and whether the server closed it. */
async function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

async function listen(app: TestApp['app']): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('connections and event streams over sockets', () => {
  it('past SCORING_MAX_CONNECTIONS a new connection is closed unanswered; one closing makes room', async () => {
    t = await testApp({ door: { maxConnections: 16 } });
    const port = await listen(t.app);
    const held = await Promise.all(Array.from({ length: 16 }, () => open(port)));
    const over = await open(port);
    over.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.race([over.closed, sleep(2000).then(() => expect.fail('the connection past the cap stayed open'))]);
    expect(over.received()).toBe('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(50);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^scoring_connections_dropped_total 1$/m);
    for (const h of held) h.socket.destroy();
  });

  it('past SCORING_MAX_EVENT_STREAMS a stream is a 429 problem, whatever the address; a closed one makes room', async () => {
    t = await testApp({ door: { maxEventStreams: 3, maxEventStreamsPerAddress: 100 } });
    await seedCompetition(t, 'c');
    const port = await listen(t.app);
    const stream = async () => {
      const s = await open(port);
      s.socket.write('GET /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!s.received().includes('\r\n\r\n')) await sleep(5);
      return s;
    };
    const opened = await Promise.all([stream(), stream(), stream()]);
    for (const s of opened) expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
    const refused = await stream();
    expect(refused.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^scoring_event_streams 3$/m);
    expect(refused.received()).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(refused.received()).toMatch(/\r\nretry-after: 30\r\n/i);
    opened[0].socket.destroy();
    await sleep(50);
    const again = await stream();
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const s of [...opened, refused, again]) s.socket.destroy();
  });

  it("answers made before Fastify (Node's parser errors, an unmet Expect) carry nosniff too", async () => {
    t = await testApp();
    const port = await listen(t.app);
    const answer = async (request: string) => {
      const s = await open(port);
      s.socket.write(request);
      await s.closed;
      return s.received();
    };
    const overflow = await answer(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const expectation = await answer('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n');
    expect(overflow).toMatch(/^HTTP\/1\.1 431 /);
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    for (const text of [overflow, expectation]) expect(text).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
  });

  it('a request whose client reset its connection is dropped: no 500, no error logged, no slot kept', async () => {
    // The client is gone before the first hook: its address went with its socket, so nothing after
    // could key its count; it was a logged 500 from the rate limiter, free for anyone to send.
    const text: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await testApp({
      door: { rateLimits: { anonymous: 1000 }, maxEventStreams: 2 },
      logger: { level: 'info', stream },
    });
    await seedCompetition(t, 'c');
    const port = await listen(t.app);
    const paths = ['/v1/competitions/c/runs', '/v1/competitions', '/v1/competitions/c/events'];
    for (let i = 0; i < 30; i++) {
      const s = await open(port);
      s.socket.write(`GET ${paths[i % paths.length]} HTTP/1.1\r\nHost: x\r\n\r\n${i % 2 ? 'x' : ''}`);
      s.socket.resetAndDestroy();
      await s.closed;
    }
    await sleep(100);
    const lines = text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; res?: { statusCode: number } });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => (l.res?.statusCode ?? 0) >= 500)).toEqual([]);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).not.toMatch(/status="5\d\d"/);
    expect(metrics).toMatch(/^scoring_event_streams 0$/m);
    // The door still answers, and the two stream slots are free.
    for (let i = 0; i < 2; i++) {
      const s = await open(port);
      s.socket.write('GET /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!s.received().includes('\r\n\r\n')) await sleep(5);
      expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
      s.socket.destroy();
    }
  });

  it('a 404 stream gives its slot back', async () => {
    t = await testApp({ door: { maxEventStreams: 1 } });
    await seedCompetition(t, 'c');
    for (let i = 0; i < 3; i++)
      expect((await t.call({ method: 'GET', url: '/v1/competitions/nope/events' })).status).toBe(404);
    const port = await listen(t.app);
    const s = await open(port);
    s.socket.write('GET /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!s.received().includes('\r\n\r\n')) await sleep(5);
    expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
    s.socket.destroy();
  });
});
