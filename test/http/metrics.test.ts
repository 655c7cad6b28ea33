// /metrics: request durations by method, route and status (src/plugins/metrics.ts), rendered as
// prom-client renders its own Histogram, which serves as the oracle.
import { Agent, METHODS, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import { RequestDurations } from '../../src/plugins/metrics.js';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

/** The `http_request_duration_seconds` lines of a /metrics text, in order. */
const durationLines = (text: string) => text.split('\n').filter((l) => l.includes('http_request_duration_seconds'));

it('renders the same text as prom-client’s Histogram fed the same durations', async () => {
  const ours = new Registry();
  const durations = new RequestDurations();
  ours.registerMetric(durations as never);
  const theirs = new Registry();
  const oracle = new Histogram({
    name: 'http_request_duration_seconds',
    help: durations.help,
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [theirs],
  });
  const get = durations.forRoute('GET', '/v1/x/:id');
  const post = durations.forRoute('POST', '/v1/x');
  // Bounds themselves (a bucket holds durations up to and including its bound), between them, past the last.
  const seen: [typeof get, string, string, number, number][] = [];
  for (const s of [0, 0.001, 0.0011, 0.0025, 0.7, 5, 5.0001, 60, 0.01])
    seen.push([get, 'GET', '/v1/x/:id', 200, s], [post, 'POST', '/v1/x', 422, s / 3]);
  seen.push([get, 'GET', '/v1/x/:id', 404, 0.002]);
  // A label value the text format escapes (no route is named so; the escaping is the format's).
  const odd = 'a"b\\c\nd';
  seen.push([durations.forRoute('GET', odd), 'GET', odd, 201, 0.004]);
  for (const [observe, method, route, status, s] of seen) {
    observe(status, s);
    oracle.observe({ method, route, status: String(status) }, s);
  }
  // Series in the order first seen, as prom-client keeps them.
  expect(await ours.metrics()).toBe(await theirs.metrics());
  // The text /metrics sends, made without prom-client's Registry: the same bytes.
  expect(`${durations.text()}\n`).toBe(await theirs.metrics());
  // After a reset, a series counts afresh (prom-client drops its series; ours keeps them, at zero).
  durations.reset();
  oracle.reset();
  get(200, 0.003);
  oracle.observe({ method: 'GET', route: '/v1/x/:id', status: '200' }, 0.003);
  const fed = async (r: Registry) => (await r.metrics()).split('\n').filter((l) => l.includes('status="200"'));
  expect(await fed(ours)).toEqual(await fed(theirs));
});

it('counts each request once under its route, method and status, and unmatched ones as such', async () => {
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'c' } });
  for (let i = 0; i < 3; i++) await t.call({ method: 'GET', url: '/v1/competitions/c' });
  await t.call({ method: 'GET', url: '/v1/competitions/nope' });
  await t.app.inject({ method: 'HEAD', url: '/v1/competitions/c' });
  await t.app.inject({ method: 'GET', url: '/no/such/route' });
  await t.app.inject({ method: 'POST', url: '/no/such/route', payload: {} });
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const count = (labels: string) => {
    const line = durationLines(text).find((l) => l.startsWith(`http_request_duration_seconds_count{${labels}}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  expect(count('method="GET",route="/v1/competitions/:competitionId",status="200"')).toBe(3);
  expect(count('method="GET",route="/v1/competitions/:competitionId",status="404"')).toBe(1);
  expect(count('method="HEAD",route="/v1/competitions/:competitionId",status="200"')).toBe(1);
  expect(
    count('method="PUT",route="/v1/competitions/:competitionId",status="201"') +
      count('method="PUT",route="/v1/competitions/:competitionId",status="200"'),
  ).toBe(1);
  expect(count('method="GET",route="unmatched",status="404"')).toBe(1);
  expect(count('method="POST",route="unmatched",status="404"')).toBe(1);
  // Cumulative buckets: never falling, +Inf equal to the count.
  const buckets = durationLines(text)
    .filter(
      (l) =>
        l.startsWith('http_request_duration_seconds_bucket') && l.includes('route="unmatched"') && l.includes('GET'),
    )
    .map((l) => Number(l.split(' ').at(-1)));
  expect(buckets).toHaveLength(13);
  expect(buckets.every((v, i) => i === 0 || v >= buckets[i - 1]!)).toBe(true);
  expect(buckets.at(-1)).toBe(1);
});

// Any client picks the method of a request that matches no route, among the dozens Node's parser takes
// (ACL, MKCALENDAR, PROPFIND, ...): each would be a series of 15 lines on every scrape from then on,
// and in the operator's Prometheus. Those no route takes are counted together, as `other`.
it('times unmatched requests under the methods routes take, the others together as `other`', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true });
  for (const method of METHODS.filter((m) => m !== 'CONNECT'))
    await new Promise<void>((resolve, reject) =>
      request({ host: '127.0.0.1', port, method, path: '/no/such/route', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end(),
    );
  agent.destroy();
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const unmatched = durationLines(text).filter(
    (l) => l.startsWith('http_request_duration_seconds_count') && l.includes('route="unmatched"'),
  );
  const methods = new Set(unmatched.map((l) => /method="([^"]*)"/.exec(l)![1]));
  expect([...methods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'other']);
  // Each request counted once (`other` may hold several statuses: QUERY is refused for its missing Content-Type).
  const counted = (m: string) =>
    unmatched.filter((l) => l.includes(`method="${m}"`)).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  expect(counted('other')).toBe(METHODS.length - 1 - 7);
  expect(counted('GET')).toBe(1);
});
