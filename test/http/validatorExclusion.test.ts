// SPEC 10 / API.md 1.1: an excluded validator's runs leave every score exactly as if they had never
// been sent, and come back on re-inclusion. A property over random competitions: the competition
// with the validator excluded is compared with a second app where its runs were never posted.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import {
  createValidators,
  postRuns,
  runBody,
  scoreReads,
  setupCompetition,
  TASK_IDS,
  type RunSpec,
  type Validator,
} from './trustKit.js';

const spec: fc.Arbitrary<RunSpec> = fc.record({
  task: fc.integer({ min: 0, max: TASK_IDS.length - 1 }),
  baseline: fc.integer({ min: 0, max: 3 }).map((k) => k === 0),
  miner: fc.integer({ min: 0, max: 3 }),
  resolved: fc.boolean(),
  tokens: fc.option(
    fc.record({
      input: fc.integer({ min: 0, max: 5000 }),
      cachedInput: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
      output: fc.integer({ min: 0, max: 900 }),
    }),
    { nil: null },
  ),
  votes: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })),
});

const sent = (validators: number) =>
  fc.array(fc.record({ v: fc.integer({ min: 0, max: validators - 1 }), spec }), { minLength: 1, maxLength: 30 });

interface Sent {
  runId: string;
  v: number;
  body: Record<string, unknown>;
}

/** Posts runs in order, one batch per stretch of runs from the same validator. */
async function post(t: TestApp, validators: Validator[], runs: Sent[]): Promise<void> {
  for (let i = 0; i < runs.length;) {
    let j = i;
    while (j < runs.length && runs[j]!.v === runs[i]!.v) j++;
    await postRuns(
      t,
      validators[runs[i]!.v]!.headers,
      runs.slice(i, j).map((r) => r.body),
    );
    i = j;
  }
}

const standing = (t: TestApp, v: Validator, excluded: boolean) =>
  t.call({
    method: 'PUT',
    url: `/v1/competitions/c/validators/${v.id}`,
    headers: admin,
    payload: { excluded, reason: 'test' },
  });

async function app(validatorCount: number) {
  const t = await testApp();
  await setupCompetition(t);
  return { t, validators: await createValidators(t, validatorCount) };
}

const scenario = fc.integer({ min: 2, max: 3 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    x: fc.integer({ min: 0, max: n - 1 }),
    first: sent(n),
    later: fc.array(fc.record({ v: fc.integer({ min: 0, max: n - 1 }), spec }), { maxLength: 12 }),
    deletions: fc.array(fc.record({ pick: fc.nat(), byOwner: fc.boolean() }), { maxLength: 6 }),
  }),
);

type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

const run = (task: number, baseline: boolean, miner = 0, resolved = true): RunSpec => ({
  task,
  baseline,
  miner,
  resolved,
  tokens: { input: 1000, output: 100 },
  votes: [3, 0],
});
const QNA = TASK_IDS.length - 1;

/** The edges, besides the random cases: the excluded validator sent everything, or nothing, or only the baseline. */
const edges: Scenario[] = [
  {
    n: 2,
    x: 0,
    first: [run(0, true), run(0, false, 1), run(QNA, false, 2), run(QNA, true)].map((spec) => ({ v: 0, spec })),
    later: [{ v: 0, spec: run(1, false, 1, false) }],
    deletions: Array.from({ length: 5 }, () => ({ pick: 0, byOwner: true })),
  },
  {
    n: 3,
    x: 2,
    first: [
      { v: 0, spec: run(0, true) },
      { v: 1, spec: run(0, false, 0) },
      { v: 0, spec: run(QNA, false, 1) },
    ],
    later: [{ v: 1, spec: run(1, false, 2, false) }],
    deletions: [{ pick: 1, byOwner: false }],
  },
  {
    n: 2,
    x: 1,
    first: [
      { v: 1, spec: run(0, true) },
      { v: 1, spec: run(QNA, true) },
      { v: 0, spec: run(0, false, 0) },
      { v: 0, spec: run(QNA, false, 3) },
    ],
    later: [{ v: 1, spec: run(0, true, 0, false) }],
    deletions: [],
  },
];

it('excluding a validator gives exactly the scores of a competition without its runs; including it again restores them', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ n, x, first, later, deletions }) => {
      // full: the validator excluded and included again; without: its runs never sent; never: never excluded.
      const [full, without, never] = [await app(n), await app(n), await app(n)];
      const sendAll = async (runs: Sent[]) => {
        await post(full.t, full.validators, runs);
        await post(never.t, never.validators, runs);
        await post(
          without.t,
          without.validators,
          runs.filter((r) => r.v !== x),
        );
      };
      try {
        const runs: Sent[] = first.map((r, i) => ({ runId: `a${i}`, v: r.v, body: runBody(`a${i}`, r.spec) }));
        await sendAll(runs);
        const original = await scoreReads(full.t);

        expect((await standing(full.t, full.validators[x]!, true)).status).toBe(201);
        expect(await scoreReads(full.t)).toEqual(await scoreReads(without.t));
        expect((await standing(full.t, full.validators[x]!, false)).status).toBe(200);
        expect(await scoreReads(full.t)).toEqual(original);

        // Excluded again: its new runs stay out, and its runs can still be deleted (by itself or the admin).
        expect((await standing(full.t, full.validators[x]!, true)).status).toBe(200);
        await sendAll(later.map((r, i) => ({ runId: `b${i}`, v: r.v, body: runBody(`b${i}`, r.spec) })));
        const stored = [...runs, ...later.map((r, i) => ({ runId: `b${i}`, v: r.v }))];
        for (const d of deletions) {
          if (stored.length === 0) break;
          const [run] = stored.splice(d.pick % stored.length, 1);
          const url = `/v1/competitions/c/runs/${run!.runId}`;
          const res = await full.t.call({
            method: 'DELETE',
            url,
            headers: d.byOwner ? full.validators[run!.v]!.headers : admin,
          });
          expect(res.status).toBe(200);
          expect((await never.t.call({ method: 'DELETE', url, headers: admin })).status).toBe(200);
          if (run!.v !== x) expect((await without.t.call({ method: 'DELETE', url, headers: admin })).status).toBe(200);
        }
        expect(await scoreReads(full.t)).toEqual(await scoreReads(without.t));

        // Included again: as if it had never been excluded.
        expect((await standing(full.t, full.validators[x]!, false)).status).toBe(200);
        expect(await scoreReads(full.t)).toEqual(await scoreReads(never.t));
      } finally {
        for (const a of [full, without, never]) await a.t.close();
      }
    }),
    // The edges first, then 12 random cases from a fixed seed.
    { numRuns: edges.length + 12, seed: 0xe8c1, examples: edges.map((e) => [e]) },
  );
}, 300_000);

it('a miner known only through an excluded validator leaves the leaderboard, unless the admin set its standing', async () => {
  const { t, validators } = await app(2);
  try {
    const miner = (runId: string, hotkey: string) => ({
      runId,
      taskId: TASK_IDS[0],
      kind: 'miner',
      minerHotkey: hotkey,
      resolved: true,
    });
    await post(t, validators, [
      { runId: 'x1', v: 0, body: miner('x1', 'only-x') },
      { runId: 'x2', v: 0, body: miner('x2', 'set-by-admin') },
    ]);
    await post(t, validators, [
      { runId: 'y1', v: 1, body: miner('y1', 'shared') },
      { runId: 'x3', v: 1, body: miner('x3', 'deleted-run') },
    ]);
    expect(
      (
        await t.call({
          method: 'PUT',
          url: '/v1/competitions/c/miners/set-by-admin',
          headers: admin,
          payload: { excluded: false },
        })
      ).status,
    ).toBe(200);
    const hotkeys = async () =>
      (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body.miners
        .map((m: { hotkey: string }) => m.hotkey)
        .sort();
    expect(await hotkeys()).toEqual(['deleted-run', 'only-x', 'set-by-admin', 'shared']);
    // A deleted run of a counted validator keeps its miner known, as before.
    expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/x3', headers: admin })).status).toBe(200);
    await standing(t, validators[0]!, true);
    expect(await hotkeys()).toEqual(['deleted-run', 'set-by-admin', 'shared']);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/miners/only-x' })).status).toBe(404);
    await standing(t, validators[0]!, false);
    expect(await hotkeys()).toEqual(['deleted-run', 'only-x', 'set-by-admin', 'shared']);
  } finally {
    await t.close();
  }
});
