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
