// Bodies refused before they are read (API.md 1.2: the refusals that cost nothing come first), over
// real sockets. A body sent to no route gets its 404 at once: gathered first, bodies that stalled
// there held the server-wide in-flight budget, unauthenticated, and a validator's batch was a 503.
import { connect, type AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

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

it('a body sent to no route is a 404 before it is read: stalled there, unauthenticated, it holds none of the in-flight budget', async () => {
  t = await testApp({ door: { maxInflightBodyBytes: 1024 * 1024, bodyTimeoutMs: 30_000 } });
  await seedCompetition(t, 'c');
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 't1', type: 'swebench_verified' }] },
  });
  const key = (await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'v' } })).body
    .apiKey as string;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  const piece = ' '.repeat(256 * 1024);
  const stalled = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      open(
        port,
        `POST /v1/nothing/${i} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${piece.length.toString(16)}\r\n${piece}\r\n`,
      ),
    ),
  );
  await sleep(300);
  for (const s of stalled) expect(s.received()).toMatch(/^HTTP\/1\.1 404 /);
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
