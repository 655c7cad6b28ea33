// A HEAD of a streamed read (the runs and tasks exports, a snapshot's input document) is answered
// from its headers alone: the stream GET would send is never read. Fastify's own HEAD handler
// resumes such a stream to its end and drops the bytes, so that one anonymous HEAD of a runs
// export read and encoded every run of the competition after its answer was gone, with nothing
// to hold it back: 10 HEADs of a 41,000-run Parquet export cost a server 4.6 s of CPU, the same 10
// GETs a client cancels after the headers 0.6 s (src/plugins/headRoutes.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, swebenchRun as run, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
/** Store reads of the streamed bodies, since the last reset. */
let reads: string[];

beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  const tasks = { tasks: [{ id: 'a', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks })).status,
  ).toBe(200);
  const payload = { runs: [run('b1', null, true), run('m1', 'alice', true), run('m2', 'bob', false)] };
  expect((await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload })).status).toBe(200);
  const taken = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(taken.status).toBe(201);
  // The store's readers of the streamed bodies, counted as they are called and passed through.
  reads = [];
  const count = <T extends object>(on: T, names: (keyof T & string)[]) => {
    for (const name of names) {
      const real = on[name] as (...args: unknown[]) => unknown;
      Object.assign(on, {
        [name]: (...args: unknown[]) => {
          reads.push(name);
          return real.apply(on, args);
        },
      });
    }
  };
  count(t.store.exports, ['runPage', 'taskPage']);
  count(t.store.snapshots, ['inputRuns']);
});
afterEach(async () => t.close());

const streamed = [
  '/v1/competitions/c/runs/export?format=ndjson',
  '/v1/competitions/c/runs/export?format=csv',
  '/v1/competitions/c/runs/export?format=parquet',
  '/v1/competitions/c/tasks/export?format=ndjson',
  '/v1/competitions/c/tasks/export?format=csv',
  '/v1/competitions/c/snapshots/1/input',
];
/** Some turns of the event loop and the timers: time for a resumed stream to read its pages. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('a HEAD of a streamed read', () => {
  it.each(streamed)('%s: the headers GET sends, and nothing read', async (url) => {
    for (const coding of ['identity', 'gzip']) {
      const headers = { 'accept-encoding': coding };
      const get = await t.app.inject({ method: 'GET', url, headers });
      expect(get.statusCode, coding).toBe(200);
      await settle();
      // The store is read for a GET: the count below is not vacuous.
      expect(reads.length, `GET ${coding}`).toBeGreaterThan(0);
      reads = [];
      const head = await t.app.inject({ method: 'HEAD', url, headers });
      await settle();
      expect(head.statusCode, coding).toBe(200);
      expect(head.rawPayload.length, coding).toBe(0);
      for (const name of ['content-type', 'content-disposition', 'content-encoding', 'vary', 'x-run-seq'])
        expect(head.headers[name], `${coding} ${name}`).toBe(get.headers[name]);
      expect(reads, `HEAD ${coding}`).toEqual([]);
    }
  });
});
