// The request log (src/plugins/requestLog.ts): one line per request, writes and failures at info,
// successful reads only at debug, naming who made the request and never what they sent to prove it.
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, testApp, type TestApp } from '../support/app.js';
import { createValidators } from './trustKit.js';

let t: TestApp | undefined;
afterEach(async () => t?.close());

type Line = {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  principal?: string;
};

async function logged(level: 'info' | 'debug') {
  const text: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await testApp({ logger: { level, stream } });
  const lines = () =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  return { app: t, lines, raw: () => text.join('') };
}

const requestLines = (lines: Line[]) => lines.filter((l) => l.req !== undefined || /request/.test(l.msg));

it('at info, logs each write and each failure once, with who made it, and no successful read', async () => {
  const { app, lines, raw } = await logged('info');
  await app.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  const [v] = await createValidators(app, 1);
  for (let i = 0; i < 5; i++) await app.call({ method: 'GET', url: '/v1/competitions/c' });
  await app.call({ method: 'GET', url: '/v1/competitions/missing' });
  await app.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: v!.headers, payload: { runs: [] } });
  await app.call({ method: 'GET', url: '/no/such/route' });

  const got = requestLines(lines());
  expect(got.map((l) => [l.msg, l.req?.method, l.req?.url, l.res?.statusCode, l.principal])).toEqual([
    ['request completed', 'PUT', '/v1/competitions/c', 201, 'admin'],
    ['request completed', 'POST', '/v1/validators', 201, 'admin'],
    ['request completed', 'GET', '/v1/competitions/missing', 404, undefined],
    ['request completed', 'POST', '/v1/competitions/c/runs', expect.any(Number), `validator ${v!.id}`],
    ['request completed', 'GET', '/no/such/route', 404, undefined],
  ]);
  for (const l of got) {
    expect(l.level).toBe(30);
    expect(l.reqId).toMatch(/^req-/);
    expect(l.responseTime).toBeGreaterThanOrEqual(0);
  }
  // Credentials never reach the log.
  expect(raw()).not.toContain(ADMIN_TOKEN);
  expect(raw()).not.toContain(v!.headers.authorization!.slice('Bearer '.length));
});

it('at debug, logs successful reads too, one line each', async () => {
  const { app, lines } = await logged('debug');
  for (let i = 0; i < 3; i++) await app.call({ method: 'GET', url: '/v1/competitions' });
  const got = requestLines(lines());
  expect(got.map((l) => [l.level, l.msg, l.req?.url, l.res?.statusCode])).toEqual(
    Array.from({ length: 3 }, () => [20, 'request completed', '/v1/competitions', 200]),
  );
});
