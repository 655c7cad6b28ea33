// Bodies refused before they are read (API.md 1.2: the refusals that cost nothing come first), over
// real sockets. A body sent to no route gets its 404 at once: gathered first, bodies that stalled
// there held the server-wide in-flight budget, unauthenticated, and a validator's batch was a 503.
// And whatever refused it (no credentials, a wrong token, a route the token may not use, no such
// route, a GET with a body), the connection closes after the answer, however long the client goes
// on sending. Kept alive, Node read and dropped what it sent for as long as it sent (until its
// request timeout, 50 s at the defaults): some 700 MB a second per connection, a core's worth, for
// a client without credentials.
import { connect, type AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { LINGER_MS } from '../../src/plugins/lingeringClose.js';
import { ADMIN_TOKEN, admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A socket to the listening app that has sent `head`, with what it received. */
async function open(port: number, head: string) {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  socket.write(head);
  return { socket, received: () => text };
}

/** Competition `c` with task `t1` and a validator (its key), the app listening on a port. */
async function listening(app: TestApp) {
  await seedCompetition(app, 'c');
  await app.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 't1', type: 'swebench_verified' }] },
  });
  const v = await app.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'v' } });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return { key: v.body.apiKey as string, port: (app.app.server.address() as AddressInfo).port };
}

it('a body sent to no route is a 404 before it is read: stalled there, unauthenticated, it holds none of the in-flight budget', async () => {
  t = await testApp({ door: { maxInflightBodyBytes: 1024 * 1024, bodyTimeoutMs: 30_000 } });
  const { key, port } = await listening(t);
  const piece = ' '.repeat(256 * 1024);
  const stalled = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      open(
        port,
        `POST /v1/nothing/${i} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${piece.length.toString(16)}\r\n${piece}\r\n`,
      ),
    ),
  );
  // Each answer is waited for (a fixed 300 ms was too short for it under load).
  await expect
    .poll(() => stalled.filter((s) => /^HTTP\/1\.1 404 /.test(s.received())).length, { timeout: 5_000, interval: 25 })
    .toBe(stalled.length);
  expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^scoring_inflight_body_bytes 0$/m);
  const batch = JSON.stringify({
    runs: [{ runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
  });
  const res = await fetch(`http://127.0.0.1:${port}/v1/competitions/c/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: batch + ' '.repeat(300_000),
  });
  expect(res.status, await res.text()).toBe(200);
  for (const s of stalled) s.socket.destroy();
});

/**
 * Sends `head` announcing a body, then body bytes as fast as the server takes them until it closes
 * the connection or `ms` pass (none when not `push`): the answer, when the connection closed (null:
 * not within `ms`), the bytes sent.
 */
async function pushBody(port: number, head: string, ms: number, push = true) {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const started = Date.now();
  let text = '';
  let closedAfter: number | null = null;
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedAfter = Date.now() - started;
      resolve();
    }),
  );
  socket.write(head);
  const piece = Buffer.alloc(64 * 1024, 0x20);
  const chunked = /transfer-encoding: chunked/i.test(head);
  const frame = chunked
    ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
    : piece;
  let sent = 0;
  const stop = sleep(ms);
  let done = false;
  void Promise.race([closed, stop]).then(() => (done = true));
  while (push && !done && !socket.destroyed) {
    sent += frame.length;
    if (!socket.write(frame)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed, stop]);
    else await new Promise((r) => setImmediate(r));
  }
  if (!push) await Promise.race([closed, stop]);
  socket.destroy();
  await closed;
  return { text, closedAfter: closedAfter === null || closedAfter >= ms ? null : closedAfter, sent };
}

it('a body refused before it is read: answered at once, and its connection closes however long the client sends', async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  const key = (await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'v' } })).body
    .apiKey as string;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  const cases: [status: number, head: string][] = [
    [
      401,
      'POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n',
    ],
    [
      401,
      'POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    ],
    [
      401,
      'POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer swv_wrong\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n',
    ],
    [
      403,
      `PUT /v1/competitions/c/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n`,
    ],
    [
      404,
      'POST /v1/nothing/here HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n',
    ],
    [
      400,
      'GET /v1/competitions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    ],
  ];
  for (const [status, head] of cases) {
    const res = await pushBody(port, head, 8000);
    const line = head.split('\r\n')[0];
    expect(res.text, line).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(res.text, line).toMatch(/\r\nconnection: close\r\n/i);
    // Closed within the bounds a refused body's connection lingers for (src/plugins/lingeringClose.ts), not kept reading.
    expect(res.closedAfter, `${line}: ${res.sent} bytes sent, still open`).not.toBeNull();
    expect(res.closedAfter!, line).toBeLessThan(LINGER_MS);
  }
  // A body read whole keeps its connection, whatever its answer.
  const whole = await pushBody(
    port,
    `POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    500,
    false,
  );
  expect(whole.text).toMatch(/^HTTP\/1\.1 400 /);
  expect(whole.text).toMatch(/\r\nconnection: keep-alive\r\n/i);
  expect(whole.closedAfter).toBeNull();
});

/**
 * Sends `head` (with `Expect: 100-continue`) and waits, as a client does, for the server's interim
 * 100 or its final answer; sends `body` only after a 100. Answers everything received, once the
 * final answer is in or the connection closes.
 */
async function expectContinue(port: number, head: string, body: string) {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  let sentBody = false;
  const final = /HTTP\/1\.1 [2-5]\d\d [^\r]*\r\n[\s\S]*?\r\n\r\n/;
  const done = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (!sentBody && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        sentBody = true;
        socket.write(body);
      }
      if (final.test(text)) resolve();
    });
    socket.once('close', () => resolve());
  });
  socket.on('error', () => {});
  socket.write(head);
  await Promise.race([done, sleep(5000)]);
  socket.destroy();
  return { text, sentBody };
}

it('Expect: 100-continue: the 100 only once the body is about to be read; a request refused before gets its answer instead', async () => {
  t = await testApp();
  const { key, port } = await listening(t);
  const batch = JSON.stringify({
    runs: [{ runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
  });
  const head = (path: string, auth: string, length: number, type = 'application/json') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: ${type}\r\nContent-Length: ${length}\r\n` +
    'Expect: 100-continue\r\n\r\n';
  const bearer = `Authorization: Bearer ${key}\r\n`;

  // Refused before the body: no 100, the final answer at once, and the body never asked for. A body
  // of a type, coding or charset the route does not take is refused on its headers too.
  for (const [status, path, auth, type] of [
    [401, '/v1/competitions/c/runs', '', undefined],
    [401, '/v1/competitions/c/runs', 'Authorization: Bearer swv_wrong\r\n', undefined],
    [403, '/v1/competitions/c/tasks/import', bearer, undefined],
    [404, '/v1/nothing', '', undefined],
    [415, '/v1/competitions/c/runs', bearer, 'application/x-ndjson'],
    [415, '/v1/competitions/c/runs', `${bearer}Content-Encoding: gzip\r\n`, undefined],
    [415, '/v1/competitions/c/runs', bearer, 'application/json; charset=latin1'],
    [
      415,
      '/v1/competitions/c/tasks/import',
      `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Encoding: gzip\r\n`,
      'application/x-ndjson',
    ],
  ] as const) {
    const res = await expectContinue(port, head(path, auth, batch.length, type), batch);
    expect(res.text, `${path} ${auth} ${type}`).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(res.sentBody, `${path} ${auth} ${type}`).toBe(false);
  }
  expect(await t.count('runs')).toBe(0);

  // Accepted: the 100 comes, the body follows, and the batch is stored.
  const ok = await expectContinue(
    port,
    head('/v1/competitions/c/runs', `Authorization: Bearer ${key}\r\n`, batch.length),
    batch,
  );
  expect(ok.sentBody).toBe(true);
  expect(ok.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  expect(await t.count('runs')).toBe(1);
  // A streamed upload (a task file, admin) is asked for its body the same way.
  const file = `${JSON.stringify({ id: 't2', type: 'swebench_verified' })}\n`;
  const upload = await expectContinue(
    port,
    head(
      '/v1/competitions/c/tasks/import',
      `Authorization: Bearer ${ADMIN_TOKEN}\r\n`,
      file.length,
      'application/x-ndjson',
    ),
    file,
  );
  expect(upload.sentBody).toBe(true);
  expect(upload.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 \d{3} /);
});
