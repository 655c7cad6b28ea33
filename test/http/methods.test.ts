// Request methods the server does not implement (RFC 9110 9.1): a method Node's parser does not
// know never reaches a route, and is answered 501 (Not Implemented), not 400 as if the request were
// malformed, as problem+json, on a connection that then closes.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => t.close());

/** What the server answers to `request`, written as it is on a fresh connection, until it closes. */
function raw(request: string): Promise<string> {
  const { port } = t.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

it.each(['FOO', 'BREW'])('%s /v1/competitions: a 501 problem', async (method) => {
  const answer = await raw(`${method} /v1/competitions HTTP/1.1\r\nHost: x\r\n\r\n`);
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
  expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
  expect(JSON.parse(body!)).toMatchObject({ status: 501, type: 'urn:swe-scoring:problem:not-implemented' });
});

it('a request that is not HTTP stays a 400', async () => {
  const answer = await raw('GET /v1/competitions NOT-HTTP\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
});

// A path some route serves, asked with a method none of them takes: a 405 whose Allow lists the
// methods that path takes (RFC 9110 15.5.6), not a 404 saying the path is not there.
it.each([
  ['DELETE', '/v1/competitions', 'GET, HEAD'],
  ['PUT', '/v1/competitions/c/leaderboard', 'GET, HEAD'],
  ['POST', '/v1/competitions/c/tasks/t', 'GET, HEAD'],
  ['PATCH', '/v1/competitions/c', 'GET, HEAD, PUT'],
  ['GET', '/v1/validators/heartbeat', 'POST, DELETE'],
  ['POST', '/v1/admin/backup', null],
])('%s %s: a 405 with the methods the path takes', async (method, url, allow) => {
  const res = await t.call({ method: method, url });
  expect(res.status).toBe(405);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const allowed = String(res.headers.allow).split(', ');
  if (allow) expect(res.headers.allow).toBe(allow);
  expect(allowed.length).toBeGreaterThan(0);
  expect(allowed).not.toContain(method);
  expect(res.body).toMatchObject({
    type: 'urn:swe-scoring:problem:method-not-allowed',
    status: 405,
    detail: `${method} is not a method of ${url}; it takes ${allowed.join(', ')}`,
  });
  // Each method it names reaches a route (whose own answer may be a 404 for a missing competition).
  for (const m of allowed) {
    const other = await t.call({ method: m, url });
    expect([m, other.status]).not.toEqual([m, 405]);
    if (m !== 'HEAD')
      expect([m, String((other.body as { detail?: string })?.detail)]).not.toEqual([m, `no route ${m} ${url}`]);
  }
});

it('a HEAD of a path that only takes POST is the 405 its GET gets, with no body', async () => {
  const get = await t.call({ method: 'GET', url: '/v1/score' });
  const head = await t.call({ method: 'HEAD', url: '/v1/score' });
  expect(get.status).toBe(405);
  expect(head.status).toBe(405);
  expect(head.headers.allow).toBe(get.headers.allow);
  expect(head.headers['content-length']).toBe(get.headers['content-length']);
});

it('a body sent with a method its path does not take is a 405 before it is read', async () => {
  const res = await t.call({
    method: 'PATCH',
    url: '/v1/competitions',
    headers: { 'content-type': 'application/json' },
    payload: '{"never": "read"',
  });
  expect(res.status).toBe(405);
  expect(res.headers.allow).toBe('GET, HEAD');
});

// A route of the request's method that finds nothing to send (Swagger UI's file server) is a 404:
// it was a 405 "it takes HEAD", as if GET were not a method of the path.
it.each(['GET', 'HEAD'])('%s of a file missing under /docs/static: a 404, not a 405', async (method) => {
  const there = await t.call({ method, url: '/docs/static/index.css' });
  expect(there.status).toBe(200);
  const res = await t.call({ method, url: '/docs/static/no-such-file.js' });
  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers.allow).toBeUndefined();
  if (method === 'GET')
    expect(res.body).toMatchObject({ status: 404, detail: 'nothing at GET /docs/static/no-such-file.js' });
});

it('a path no route serves stays a 404', async () => {
  const res = await t.call({ method: 'DELETE', url: '/v1/nothing/here' });
  expect(res.status).toBe(404);
  expect(res.headers.allow).toBeUndefined();
  expect(res.body).toMatchObject({ status: 404, detail: 'no route DELETE /v1/nothing/here' });
});

// A path parameter over the router's cap (1,024 characters) is a 414 with every method the API has
// (src/app.ts, maxParamLength): asked with one no route takes, the path gets the same 414, not a 405
// whose Allow would list every method any route anywhere takes.
it.each([
  ['PATCH', `/v1/competitions/${'a'.repeat(1100)}`],
  ['OPTIONS', `/v1/competitions/${'a'.repeat(1100)}/leaderboard`],
  ['PATCH', `/v1/competitions/${'a'.repeat(1100)}/no/such/route`],
])('%s of a path whose parameter is over the cap: the 414 its GET gets', async (method, url) => {
  const get = await t.call({ method: 'GET', url });
  expect(get.status).toBe(414);
  const res = await t.call({ method, url });
  expect(res.status).toBe(414);
  expect(res.headers.allow).toBeUndefined();
  expect(res.body).toEqual(get.body);
  // With a body too: refused before it is read, as the same 414.
  const withBody = await t.call({ method, url, headers: { 'content-type': 'application/json' }, payload: '{}' });
  expect(withBody.status).toBe(414);
});

it.each(['PATCH', 'OPTIONS', 'GET'])(
  '%s of a path with a broken percent-escape stays the router’s 400',
  async (method) => {
    const res = await t.call({ method, url: '/v1/competitions/%E0%A4%A' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'urn:swe-scoring:problem:bad-request' });
  },
);

// CONNECT (a proxy's tunnel, RFC 9110 9.3.6) is a method Node's parser takes but hands to a
// listener of its own, outside the router: with none, Node closed the connection without a word.
it('CONNECT: a 501 problem, not a connection closed unanswered', async () => {
  const answer = await raw('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
  expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
  expect(JSON.parse(body!)).toMatchObject({ status: 501, type: 'urn:swe-scoring:problem:not-implemented' });
});
