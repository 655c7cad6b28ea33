// Server-Sent Events (API.md 1.1), over a real socket: a notice on connect, one after each
// acknowledged write (coalesced), none for writes to another competition.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let base: string;

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
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterEach(async () => t.close());

/** Opens the stream and collects its `scores` events. */
function subscribe(competition: string) {
  const versions: number[] = [];
  let status = 0;
  let contentType = '';
  const req = request(`${base}/v1/competitions/${competition}/events`, (res) => {
    status = res.statusCode ?? 0;
    contentType = String(res.headers['content-type']);
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^event: scores\ndata: (.*)$/m.exec(block);
        if (data) versions.push((JSON.parse(data[1]!) as { version: number }).version);
      }
    });
  });
  req.end();
  return { versions, status: () => status, contentType: () => contentType, close: () => req.destroy() };
}

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const post = (competition: string, runId: string) =>
  fetch(`${base}/v1/competitions/${competition}/runs`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ runs: [{ runId, taskId: 'a', kind: 'baseline', resolved: true }] }),
  });

it('sends the version on connect and a newer one after a write, none for another competition', async () => {
  const s = subscribe('c');
  await until(() => s.versions.length === 1);
  expect(s.status()).toBe(200);
  expect(s.contentType()).toMatch(/^text\/event-stream/);
  const first = s.versions[0]!;

  expect((await post('other', 'o1')).status).toBe(200);
  await new Promise((r) => setTimeout(r, 400));
  expect(s.versions).toHaveLength(1);

  expect((await post('c', 'r1')).status).toBe(200);
  await until(() => s.versions.length === 2);
  expect(s.versions[1]).toBeGreaterThan(first);
  s.close();
});

it('coalesces a burst of writes into at most one notice per 250 ms', async () => {
  const s = subscribe('c');
  await until(() => s.versions.length === 1);
  const started = Date.now();
  for (let i = 0; i < 10; i++) expect((await post('c', `burst-${i}`)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 600));
  const elapsed = Date.now() - started;
  const notices = s.versions.length - 1;
  expect(notices).toBeGreaterThanOrEqual(1);
  expect(notices).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 1);
  // The last notice carries the version after the last write.
  expect(s.versions.at(-1)).toBeGreaterThan(s.versions[0]!);
  s.close();
});

it('404 problem for an unknown competition', async () => {
  const res = await fetch(`${base}/v1/competitions/nope/events`);
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/problem\+json/);
});
