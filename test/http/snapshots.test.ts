// Snapshots taken between random writes (runs, deletions, miner and validator exclusions, setting
// changes): for every snapshot, its input hashes to its inputDigest, rescoring the input with the
// command line's own code reproduces its leaderboard and weights exactly, the chain links, and
// the signature verifies with node:crypto from the key GET /v1/identity publishes. Later writes
// never change an earlier snapshot's input.
import { createHash, createPublicKey, verify } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, expect, it } from 'vitest';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TASKS = [
  { id: 'a', type: 'swebench_verified', complexity: 'short' },
  { id: 'b', type: 'swebench_verified', complexity: 'long' },
  { id: 'c', type: 'swebench_verified', stage: 'screener_2' },
  { id: 'd', type: 'swebench_verified', complexity: 'medium', stage: 'screener_1' },
];
const MINERS = ['m1', 'm2', 'm3', 'm4'];

type Op =
  | {
      op: 'runs';
      validator: number;
      runs: { task: number; miner: number | null; resolved: boolean; input: number; output: number }[];
    }
  | { op: 'delete'; pick: number }
  | { op: 'excludeMiner'; miner: number; excluded: boolean }
  | { op: 'excludeValidator'; validator: number; excluded: boolean }
  | { op: 'settings'; burnRatio: number; output: number }
  | { op: 'read' }
  | { op: 'snapshot' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('runs' as const),
      validator: fc.integer({ min: 0, max: 1 }),
      runs: fc.array(
        fc.record({
          task: fc.integer({ min: 0, max: 3 }),
          miner: fc.option(fc.integer({ min: 0, max: 3 })),
          resolved: fc.boolean(),
          input: fc.integer({ min: 0, max: 5000 }),
          output: fc.integer({ min: 0, max: 500 }),
        }),
        { minLength: 1, maxLength: 8 },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('excludeMiner' as const),
      miner: fc.integer({ min: 0, max: 3 }),
      excluded: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('excludeValidator' as const),
      validator: fc.integer({ min: 0, max: 1 }),
      excluded: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('settings' as const),
      burnRatio: fc.constantFrom(0, 0.1, 0.5),
      output: fc.constantFrom(1, 3, 5),
    }),
  },
  // A read keeps the scores, which a snapshot of the same input then takes instead of computing.
  { weight: 2, arbitrary: fc.constant({ op: 'read' as const }) },
  { weight: 3, arbitrary: fc.constant({ op: 'snapshot' as const }) },
);

it('every snapshot verifies from its input, forever after', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 24 }), async (ops) => {
      await t?.close();
      t = await testApp();
      const app = t;
      await seedCompetition(app, 'c');
      expect(
        (await app.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks: TASKS } }))
          .status,
      ).toBe(200);
      const keys: { id: string; key: string }[] = [];
      for (const name of ['v1', 'v2']) {
        const v = await app.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name } });
        keys.push({ id: v.body.id, key: v.body.apiKey });
      }
      const publicKey = (await app.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
      const stored: string[] = [];
      let next = 0;
      // Each snapshot with its input as served right after it was taken.
      const taken: { document: string; input: string }[] = [];
      for (const op of [...ops, { op: 'snapshot' } as Op]) {
        if (op.op === 'runs') {
          const runs = op.runs.map((r) => ({
            runId: `r${next++}`,
            taskId: TASKS[r.task]!.id,
            resolved: r.resolved,
            tokens: { input: r.input, output: r.output },
            ...(r.miner === null ? { kind: 'baseline' } : { kind: 'miner', minerHotkey: MINERS[r.miner] }),
          }));
          const res = await app.call({
            method: 'POST',
            url: '/v1/competitions/c/runs',
            headers: { authorization: `Bearer ${keys[op.validator]!.key}` },
            payload: { runs },
          });
          expect(res.status).toBe(200);
          stored.push(...runs.map((r) => r.runId));
        } else if (op.op === 'read') {
          expect((await app.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).status).toBe(200);
        } else if (op.op === 'delete' && stored.length > 0) {
          const [id] = stored.splice(op.pick % stored.length, 1);
          expect(
            (await app.call({ method: 'DELETE', url: `/v1/competitions/c/runs/${id}`, headers: admin })).status,
          ).toBe(200);
        } else if (op.op === 'excludeMiner') {
          await app.call({
            method: 'PUT',
            url: `/v1/competitions/c/miners/${MINERS[op.miner]}`,
            headers: admin,
            payload: { excluded: op.excluded },
          });
        } else if (op.op === 'excludeValidator') {
          const res = await app.call({
            method: 'PUT',
            url: `/v1/competitions/c/validators/${keys[op.validator]!.id}`,
            headers: admin,
            payload: { excluded: op.excluded },
          });
          expect(res.status).toBeLessThan(300);
        } else if (op.op === 'settings') {
          const payload = {
            name: 'Test',
            burnRatio: op.burnRatio,
            tokenWeights: { input: 1, cachedInput: 0.1, output: op.output },
          };
          expect((await app.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload })).status).toBe(
            200,
          );
        } else if (op.op === 'snapshot') {
          const res = await app.app.inject({
            method: 'POST',
            url: '/v1/competitions/c/snapshots',
            headers: admin,
            payload: {},
          });
          expect(res.statusCode).toBe(201);
          const seq = (JSON.parse(res.body) as { seq: number }).seq;
          const input = (await app.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${seq}/input` }))
            .body;
          taken.push({ document: res.body, input });
        }
      }
      // After every write: each snapshot, read again, is unchanged, and verifies from its input.
      for (const [i, { document, input }] of taken.entries()) {
        const snapshot = JSON.parse(document) as {
          seq: number;
          hash: string;
          signature: string;
          inputDigest: string;
          previousHash: string | null;
        };
        const again = await app.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${snapshot.seq}` });
        expect(again.body).toBe(document);
        const inputNow = (
          await app.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${snapshot.seq}/input` })
        ).body;
        expect(inputNow).toBe(input);
        expect(createHash('sha256').update(inputNow).digest('hex')).toBe(snapshot.inputDigest);
        // The hash recomputed here, and the signature checked with node:crypto alone.
        const { hash: _h, signature: _s, ...unsigned } = JSON.parse(document) as Record<string, unknown>;
        expect(createHash('sha256').update(canonicalJson(unsigned)).digest('hex')).toBe(snapshot.hash);
        expect(
          verify(
            null,
            Buffer.from(snapshot.hash, 'ascii'),
            createPublicKey(publicKey),
            Buffer.from(snapshot.signature, 'base64'),
          ),
        ).toBe(true);
        const previous = i > 0 ? taken[i - 1]!.document : undefined;
        expect(snapshot.previousHash).toBe(previous ? (JSON.parse(previous) as { hash: string }).hash : null);
        const result = verifySnapshot({
          snapshot: document,
          input: inputNow,
          publicKeyPem: publicKey,
          previousSnapshot: previous,
        });
        expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
        expect(result.ok).toBe(true);
      }
    }),
    { numRuns: 12 },
  );
}, 120_000);

it('lists snapshots, serves the latest, and keeps miner and weight history', async () => {
  t = await testApp();
  const app = t;
  await seedCompetition(app, 'c');
  await app.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks: TASKS } });
  const post = (runs: object[]) =>
    app.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
  const snap = () =>
    app.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: { note: 'test' } });
  const none = await app.call({ method: 'GET', url: '/v1/competitions/c/snapshots/latest' });
  expect(none.status).toBe(404);
  expect(none.body.detail).toBe('competition c has no snapshot yet');
  // Of a competition that does not exist, every snapshot read says so (it said "has no snapshot").
  for (const path of ['snapshots/latest', 'snapshots/1', 'snapshots/1/input']) {
    const missing = await app.call({ method: 'GET', url: `/v1/competitions/nope/${path}` });
    expect(missing.status, path).toBe(404);
    expect(missing.body.detail, path).toBe('competition nope does not exist');
  }
  await post([
    { runId: 'b1', taskId: 'a', kind: 'baseline', resolved: true },
    { runId: 'b2', taskId: 'a', kind: 'baseline', resolved: true },
    { runId: 'x1', taskId: 'a', kind: 'miner', minerHotkey: 'm1', resolved: true },
  ]);
  expect((await snap()).status).toBe(201);
  await post([
    { runId: 'x2', taskId: 'a', kind: 'miner', minerHotkey: 'm2', resolved: true, tokens: { input: 1, output: 1 } },
  ]);
  expect((await snap()).status).toBe(201);
  const list = (await app.call({ method: 'GET', url: '/v1/competitions/c/snapshots?limit=1' })).body;
  expect(list.snapshots).toHaveLength(1);
  expect(list.snapshots[0]).not.toHaveProperty('leaderboard');
  expect(list.snapshots[0].note).toBe('test');
  const rest = (
    await app.call({ method: 'GET', url: `/v1/competitions/c/snapshots?limit=1&cursor=${list.nextCursor}` })
  ).body;
  expect(rest.snapshots.map((s: { seq: number }) => s.seq)).toEqual([2]);
  expect((await app.call({ method: 'GET', url: '/v1/competitions/c/snapshots/latest' })).body.seq).toBe(2);
  const history = (await app.call({ method: 'GET', url: '/v1/competitions/c/miners/m2/history' })).body.history;
  expect(history.map((h: { seq: number; rank: number | null }) => [h.seq, h.rank])).toEqual([
    [1, null],
    [2, 1],
  ]);
  const weights = (await app.call({ method: 'GET', url: '/v1/competitions/c/weights/history' })).body.history;
  expect(weights[0].finalWeights).toEqual({ m1: 1 });
  expect(Object.keys(weights[1].finalWeights)).toContain('m2');
  // The audit log records who took them.
  const audit = (await app.call({ method: 'GET', url: '/v1/audit?competition=c', headers: admin })).body.entries;
  expect(audit.filter((e: { action: string }) => e.action === 'snapshot.take')).toHaveLength(2);
});

it('POST /v1/score scores a snapshot input without storing it, and names the line of a bad one', async () => {
  t = await testApp();
  const app = t;
  await seedCompetition(app, 'c');
  await app.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks: TASKS } });
  await app.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: admin,
    payload: {
      runs: [
        { runId: 'b1', taskId: 'a', kind: 'baseline', resolved: true },
        { runId: 'x1', taskId: 'a', kind: 'miner', minerHotkey: 'm1', resolved: true },
      ],
    },
  });
  const snapshot = JSON.parse(
    (await app.app.inject({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })).body,
  );
  const input = (await app.app.inject({ method: 'GET', url: '/v1/competitions/c/snapshots/1/input' })).body;
  const scored = await app.call({
    method: 'POST',
    url: '/v1/score',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    payload: input,
  });
  expect(scored.status).toBe(200);
  expect(scored.body).toEqual({ leaderboard: snapshot.leaderboard, weights: snapshot.weights });
  const lines = input.split('\n');
  const first = lines.findIndex((l) => l.startsWith('{"run"'));
  const broken = lines.map((l, i) => (i === first ? l.replace('"kind":"baseline"', '"kind":"nobody"') : l)).join('\n');
  const bad = await app.call({
    method: 'POST',
    url: '/v1/score',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    payload: broken,
  });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].path).toMatch(new RegExp(`^body/line ${first + 1}/run.kind`));
  // NDJSON only: another file type is a 415 that names the one taken.
  const parquet = await app.call({
    method: 'POST',
    url: '/v1/score',
    headers: { ...admin, 'content-type': 'application/vnd.apache.parquet' },
    payload: Buffer.from('PAR1'),
  });
  expect(parquet.status).toBe(415);
  expect(parquet.body.detail).toMatch(/accepts application\/x-ndjson$/);
  // A snapshot number past 2^53 - 1 is refused, not rounded to another one.
  const huge = await app.call({ method: 'GET', url: '/v1/competitions/c/snapshots/9007199254740993' });
  expect(huge.status).toBe(400);
  expect(huge.body.errors[0].path).toBe('params/seq');
});

it('a write goes through while a large snapshot input is being streamed', async () => {
  t = await testApp();
  const app = t;
  await competitionWithRuns(
    app,
    Array.from({ length: 25_000 }, (_, n) => `r${Math.floor(n / 5000)}-${String(n % 5000).padStart(5, '0')}`),
  );
  const snapshot = JSON.parse(
    (await app.app.inject({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })).body,
  );
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.app.server.address() as import('node:net').AddressInfo).port}`;
  const res = await fetch(`${base}/v1/competitions/c/snapshots/1/input`);
  const reader = res.body!.getReader();
  const hash = createHash('sha256');
  const first = await reader.read();
  hash.update(first.value!);
  // The stream is open and far from done: a write on the same connection must not wait or fail.
  const write = await fetch(`${base}/v1/competitions/c/runs`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ runs: [{ runId: 'late', taskId: 'a', kind: 'baseline', resolved: true }] }),
  });
  expect(write.status).toBe(200);
  for (let r = await reader.read(); !r.done; r = await reader.read()) hash.update(r.value);
  expect(hash.digest('hex')).toBe(snapshot.inputDigest);
}, 60_000);

it('runs deleted while an input is read are still in it: the digest and every later read agree', async () => {
  t = await testApp();
  const app = t;
  const ids = Array.from({ length: 24_000 }, (_, i) => `r${String(i).padStart(5, '0')}`);
  await competitionWithRuns(app, ids);
  const deleteRun = async (id: string) =>
    expect((await app.call({ method: 'DELETE', url: `/v1/competitions/c/runs/${id}`, headers: admin })).status).toBe(
      200,
    );
  await deleteRun('r00002'); // before the snapshot: not in it
  const snapshot = (
    await app.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} })
  ).body as { seq: number; inputDigest: string };

  // Read the input a chunk at a time, deleting runs far ahead of the reader between chunks.
  const stream = (await app.app.services.snapshots.input('c', snapshot.seq)).open();
  const hash = createHash('sha256');
  let chunks = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    if (++chunks <= 3) await deleteRun(ids[ids.length - 10 * chunks]!);
  }
  expect(chunks).toBeGreaterThan(3);
  expect(hash.digest('hex')).toBe(snapshot.inputDigest);

  // The snapshot holds every run but the one deleted before it, and verifies.
  const input = (await app.call({ method: 'GET', url: `/v1/competitions/c/snapshots/${snapshot.seq}/input` }))
    .body as string;
  const lines = input.trimEnd().split('\n');
  expect(lines.filter((l) => l.includes('"runId"')).length).toBe(ids.length - 1);
  expect(createHash('sha256').update(input).digest('hex')).toBe(snapshot.inputDigest);
}, 60_000);

/** Competition `c` with its tasks and a miner run for each id, sent in batches of 4,000. */
async function competitionWithRuns(app: TestApp, ids: string[]): Promise<void> {
  await seedCompetition(app, 'c');
  await app.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks: TASKS } });
  for (let b = 0; b < ids.length; b += 4000) {
    const runs = ids.slice(b, b + 4000).map((runId, i) => ({
      runId,
      taskId: TASKS[i % 4]!.id,
      kind: 'miner',
      minerHotkey: MINERS[i % 4],
      resolved: i % 3 === 0,
      tokens: { input: 1000 + i, output: 100 },
    }));
    expect(
      (await app.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } })).status,
    ).toBe(200);
  }
}

/** How many score computations the app's metrics have counted. */
async function computations(app: TestApp): Promise<number> {
  const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('scoring_computation_seconds_count'));
  return Number(line?.split(' ')[1]);
}

it('takes the kept scores when they come from its very input, and computes them when not', async () => {
  t = await testApp();
  await competitionWithRuns(t, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  const snapshot = async () => {
    const res = await t!.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
    expect(res.status).toBe(201);
    return (res.body as { leaderboard: { miners: unknown[] } }).leaderboard;
  };
  const read = async () => (await t!.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body;
  const start = await computations(t);
  const board = (await read()) as { miners: unknown[] };
  expect(await computations(t)).toBe(start + 1);
  // SQLite hands the transaction the (task, miner) list the read was computed from: nothing to
  // compute. PostgreSQL reads every pair again inside the transaction: a new list, computed.
  const reuses = t.engine === 'sqlite';
  expect((await snapshot()).miners).toEqual(board.miners);
  expect(await computations(t)).toBe(start + (reuses ? 1 : 2));
  // Other settings, then a write without a read after it: the snapshot computes.
  const settings = { name: 'Test', burnRatio: 0.5 };
  expect((await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: settings })).status).toBe(
    200,
  );
  const afterSettings = await snapshot();
  expect(await computations(t)).toBe(start + (reuses ? 2 : 3));
  expect(afterSettings.miners).toEqual(((await read()) as { miners: unknown[] }).miners);
  const runs = [
    { runId: 'late', taskId: 'a', kind: 'miner', minerHotkey: 'm9', resolved: true, tokens: { input: 5, output: 1 } },
  ];
  expect(
    (await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } })).status,
  ).toBe(200);
  const afterWrite = await snapshot();
  expect(afterWrite.miners).toHaveLength(board.miners.length + 1);
  expect(afterWrite.miners).toEqual(((await read()) as { miners: unknown[] }).miners);
});
