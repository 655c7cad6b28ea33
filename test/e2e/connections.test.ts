// What the server does with a connection when a request goes wrong at the socket level, on a real
// server process and raw sockets: a body refused part way (413), a body the client cuts off, a HEAD
// of the event stream. Each must leave the server answering, the client not waiting on nothing,
// and the log telling what happened (not a database outage).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

let tmp: TempDir;
let server: ServerProcess;
beforeAll(async () => {
  tmp = tempDir('connections');
  server = await startServer({ dbPath: `${tmp.dir}/db.sqlite` });
  const res = await fetch(`${server.baseUrl}/v1/competitions/c`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'c' }),
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await server?.stop();
  tmp?.remove();
});

/** A socket to the server, with everything it receives and whether the server closed it. */
async function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {}); // a reset after the server's answer is one way of closing
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('connections', () => {
  it('a chunked upload past the body limit gets a 413 and the connection closes, not a hang', async () => {
    const { socket, received, closed } = await open();
    socket.write(
      'POST /v1/competitions/c/tasks/import HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: Bearer ${SERVER_ADMIN_TOKEN}\r\nContent-Type: application/x-ndjson\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n',
    );
    const piece = Buffer.alloc(1 << 20, 0x20); // 1 MiB of spaces
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    // 33 MiB, then the client stops sending, as one that read the 413 would, and asks again.
    for (let i = 0; i < 33 && !received(); i++)
      if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
    await waitFor(() => received().includes('\r\n\r\n'), 10_000, 'the 413');
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(received().toLowerCase()).toContain('connection: close');
    expect(received()).toContain('application/problem+json');
    await within(closed, 5_000, 'the server closing the connection');
  });

  it('a body the client cuts off is its doing: not logged as the database unavailable, and the server goes on', async () => {
    const before = server.output().length;
    const { socket, closed } = await open();
    socket.write(
      'POST /v1/competitions/c/snapshots HTTP/1.1\r\nHost: x\r\n' +
        `Authorization: Bearer ${SERVER_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"`,
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    await closed;
    // The server goes on answering; its log of the cut-off request (if any) names no outage.
    const res = await fetch(`${server.baseUrl}/v1/competitions/c`);
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.output().slice(before)).not.toMatch(/database unavailable/);
  });

  it.each([
    [
      'headers over 16 KiB',
      `GET /v1/audit?cursor=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      'headers-too-large',
    ],
    ['a malformed request line', 'GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n', 400, 'bad-request'],
    [
      'two Content-Length headers',
      'POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
      'bad-request',
    ],
  ])('%s: a problem+json the HTTP parser refused, then the connection closes', async (_what, raw, status, slug) => {
    const { socket, received, closed } = await open();
    socket.write(raw);
    await within(closed, 5_000, 'the answer');
    const [head, body] = received().split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head!.toLowerCase()).toContain('content-type: application/problem+json');
    expect(JSON.parse(body!)).toMatchObject({
      type: `urn:swe-scoring:problem:${slug}`,
      status,
      detail: expect.any(String),
    });
  });

  it('an Expect header asking for anything but 100-continue: a 417 problem naming the header, nothing stored', async () => {
    const { socket, received, closed } = await open();
    const body = JSON.stringify({ name: 'never' });
    socket.write(
      'PUT /v1/competitions/expect HTTP/1.1\r\nHost: x\r\nExpect: 42-nope\r\n' +
        `Authorization: Bearer ${SERVER_ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    await within(closed, 5_000, 'the answer');
    const [head, answer] = received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 417 /);
    expect(head!.toLowerCase()).toContain('content-type: application/problem+json');
    expect(JSON.parse(answer!)).toMatchObject({
      type: 'urn:swe-scoring:problem:expectation-failed',
      status: 417,
      detail: expect.stringContaining('42-nope'),
      errors: [{ path: 'headers/expect', message: expect.any(String) }],
    });
    expect((await fetch(`${server.baseUrl}/v1/competitions/expect`)).status).toBe(404);
    // 100-continue is met as usual.
    const ok = await new Promise<string>((resolve) => {
      void open().then(({ socket: s, received: r }) => {
        s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
        s.once('close', () => resolve(r()));
      });
    });
    expect(ok).toMatch(/HTTP\/1\.1 200 /);
  });

  it('HEAD of the event stream answers with its headers, and no stream follows', async () => {
    const { socket, received } = await open();
    socket.write('HEAD /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => received().includes('\r\n\r\n'), 5_000, 'the HEAD answer');
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(received().toLowerCase()).toContain('content-type: text/event-stream');
    await new Promise((r) => setTimeout(r, 300));
    expect(received().split('\r\n\r\n')[1]).toBe('');
    // The connection serves the next request.
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await waitFor(() => /\r\n\r\n[\s\S]*HTTP\/1\.1 200 /.test(received()), 5_000, 'the next answer');
    socket.destroy();
  });
});
