// A write that recounts a whole competition (new token weights, a validator excluded or included
// again, a new judge configuration) runs, on a SQLite file, on a worker thread's connection of its
// own (src/db/sqlite/elsewhere.ts), so the event loop goes on answering meanwhile. What it stores
// is what the same write stores on the main connection (an in-memory database, which has no file
// for a second connection); reads and /healthz are answered while it waits; a write sent meanwhile
// waits for it, in the write gate rather than in SQLite's busy handler; a refusal stores nothing.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { txWorkerRunning } from '../../src/db/sqlite/elsewhere.js';
import { admin, TEST_ENGINE, testApp } from '../support/app.js';
import { tempDir, type TempDir } from '../support/tempDir.js';
import { J1, J2, ok, recounted, runsOf, seed, type Side } from './recountKit.js';

const C = '/v1/competitions/c';
/** A batch sent while a recount waits. */
const DURING = {
  runs: [
    {
      runId: 'during',
      taskId: 's',
      kind: 'miner',
      minerHotkey: 'dave',
      resolved: true,
      tokens: { input: 10, output: 10 },
    },
  ],
};

describe.skipIf(TEST_ENGINE !== 'sqlite')('a recount on a database file', () => {
  let dir: TempDir;
  let file: Side;
  let memory: Side;
  beforeEach(async () => {
    dir = tempDir('recount');
    file = await seed(await testApp({ path: join(dir.dir, 'scoring.db') }));
    memory = await seed(await testApp());
  });
  afterEach(async () => {
    await file.t.close();
    await memory.t.close();
    dir.remove();
  });

  it('stores, step by step, what the same writes store on the main connection', async () => {
    const j2 = (await memory.t.call({ method: 'PUT', url: `${C}/judge`, headers: admin, payload: J2 })).body;
    await file.t.call({ method: 'PUT', url: `${C}/judge`, headers: admin, payload: J2 });
    // Runs graded under the second judge, so that each judge in force counts some runs and not others.
    for (const side of [memory, file])
      await ok(
        side.t,
        'POST',
        `${C}/runs`,
        { runs: runsOf('late', j2.digest, 2) },
        {
          authorization: `Bearer ${side.keys[0]}`,
        },
      );
    const steps: [string, (s: Side) => [method: 'PUT', url: string, payload: object]][] = [
      ['new token weights', () => ['PUT', C, { name: 'c', tokenWeights: { input: 2, cachedInput: 0.5, output: 3 } }]],
      ['v2 excluded', (s) => ['PUT', `${C}/validators/${s.ids[1]}`, { excluded: true, reason: 'audit' }]],
      ['the first judge again', () => ['PUT', `${C}/judge`, J1]],
      ['v2 included again', (s) => ['PUT', `${C}/validators/${s.ids[1]}`, { excluded: false }]],
      ['v1 excluded', (s) => ['PUT', `${C}/validators/${s.ids[0]}`, { excluded: true }]],
      ['the weights back', () => ['PUT', C, { name: 'c', tokenWeights: { input: 1, cachedInput: 0.1, output: 1 } }]],
      ['the second judge again', () => ['PUT', `${C}/judge`, J2]],
    ];
    for (const [step, write] of steps) {
      const answers = [];
      for (const side of [memory, file]) {
        const [method, url, payload] = write(side);
        const res = await side.t.call({ method, url, headers: admin, payload });
        expect(res.status, `${step}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        answers.push(res.body);
        // The file's recount ran on the worker (it outlives its last transaction by two seconds).
        if (side === file) expect(txWorkerRunning(), step).toBe(true);
      }
      // Timestamps and validator ids are each app's own.
      const strip = (b: unknown, side: Side) =>
        side.ids.reduce(
          (text, id, i) => text.replaceAll(id, `v${i}`),
          JSON.stringify(b).replace(/"\w+At":"[^"]+"/g, ''),
        );
      expect(strip(answers[1], file), step).toBe(strip(answers[0], memory));
      expect(await recounted(file.t, 'c', file.ids), step).toEqual(await recounted(memory.t, 'c', memory.ids));
    }
    // The steps changed what is scored: the leaderboard at the end is not the one at the start.
    const fresh = await seed(await testApp());
    try {
      expect((await recounted(file.t)).leaderboard).not.toEqual((await recounted(fresh.t)).leaderboard);
    } finally {
      await fresh.t.close();
    }
  });

  it('answers reads and /healthz while the recount waits, and a write sent meanwhile waits for it', async () => {
    const before = (await file.t.call({ method: 'GET', url: `${C}/leaderboard` })).body;
    // Another connection holds the file's write lock: the recount's BEGIN IMMEDIATE waits for it.
    const other = new Database(join(dir.dir, 'scoring.db'));
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const put = file.t
      .call({
        method: 'PUT',
        url: C,
        headers: admin,
        payload: { name: 'c', tokenWeights: { input: 2, cachedInput: 0.5, output: 3 } },
      })
      .finally(() => (settled = true));
    const post = file.t.call({
      method: 'POST',
      url: `${C}/runs`,
      headers: { authorization: `Bearer ${file.keys[1]}` },
      payload: DURING,
    });
    try {
      // On the main connection the PUT would wait in SQLite's busy handler, holding the event loop
      // until it gave up (5 s) with a 503: neither read would be answered before it settled.
      for (let i = 0; i < 5; i++) {
        expect((await file.t.call({ method: 'GET', url: '/healthz' })).status).toBe(200);
        const read = await file.t.call({ method: 'GET', url: `${C}/leaderboard` });
        expect(read.status).toBe(200);
        expect(read.body).toEqual(before);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(settled).toBe(false);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await put).status).toBe(200);
    expect((await post).status).toBe(200);
    // The run written meanwhile counts under the new weights, as on the main connection.
    await ok(memory.t, 'PUT', C, { name: 'c', tokenWeights: { input: 2, cachedInput: 0.5, output: 3 } });
    await ok(memory.t, 'POST', `${C}/runs`, DURING, { authorization: `Bearer ${memory.keys[1]}` });
    expect(await recounted(file.t, 'c', file.ids)).toEqual(await recounted(memory.t, 'c', memory.ids));
  });

  it('refuses on the worker what the main connection refuses, storing nothing', async () => {
    // Under zero weights no run's tokens enter the sums; two runs of 2^53 - 6 tokens then wait.
    const zero = { input: 0, cachedInput: 0, output: 0 };
    const big = (runId: string) => ({
      runId,
      taskId: 's',
      kind: 'baseline',
      resolved: true,
      tokens: { input: Number.MAX_SAFE_INTEGER - 5, output: 10 },
    });
    await ok(file.t, 'PUT', C, { name: 'c', tokenWeights: zero });
    await ok(
      file.t,
      'POST',
      `${C}/runs`,
      { runs: [big('big1'), big('big2')] },
      { authorization: `Bearer ${file.keys[0]}` },
    );
    const dump = await file.t.dump();
    const refused = await file.t.call({
      method: 'PUT',
      url: C,
      headers: admin,
      payload: { name: 'c', tokenWeights: { input: 1, cachedInput: 0.1, output: 1 } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('the baseline on task s');
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(await file.t.dump()).toBe(dump);
    // The refusal released the gate: the next write goes through.
    await ok(file.t, 'PUT', C, { name: 'c', burnRatio: 0.5 });
  });
});
