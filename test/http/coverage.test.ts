// SPEC 13 / API.md 1.2: GET /v1/competitions/{id}/coverage. The pairs and their counts are checked
// against a count made here over the stored runs (after deletions, without an excluded validator's
// runs), for the whole list, each filter and every page.
import { afterEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import fc from 'fast-check';
import {
  createValidators,
  postRuns,
  qna,
  runBody,
  setupCompetition,
  TASK_IDS,
  type RunSpec,
  type Validator,
} from './trustKit.js';
import type { Json } from '../support/json.js';
import { keypairFromSeed } from '../../src/client/sign.js';

let t: TestApp;
afterEach(async () => t?.close());

interface Pair {
  taskId: string;
  miner: string;
  planned: number;
  have: number;
  missing: number;
}

const run = (runId: string, taskId: string, hotkey: string | null, resolved = true) => ({
  runId,
  taskId,
  resolved,
  ...(hotkey ? { kind: 'miner', minerHotkey: hotkey } : { kind: 'baseline' }),
});

/** The coverage a reader expects, counted over the runs table as it stands. */
async function expected(stages: string[], competitionPlanned: number): Promise<Pair[]> {
  const excluded = new Set(
    (await t.query("SELECT validator_id, excluded FROM competition_validators WHERE competition_id = 'c'"))
      .filter((r) => Boolean(r.excluded))
      .map((r) => r.validator_id as string),
  );
  const runs = (
    await t.query("SELECT task_id, kind, miner_hotkey, validator_id FROM runs WHERE competition_id = 'c'")
  ).filter((r) => r.validator_id === null || !excluded.has(r.validator_id as string));
  const tasks = (await t.query("SELECT id, stage, planned_runs FROM tasks WHERE competition_id = 'c'"))
    .filter((r) => stages.includes(r.stage as string))
    .map((r) => ({ id: r.id as string, planned: (r.planned_runs as number | null) ?? competitionPlanned }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const miners = [...new Set(runs.filter((r) => r.kind === 'miner').map((r) => r.miner_hotkey as string))].sort();
  const have = (taskId: string, miner: string) =>
    runs.filter(
      (r) => r.task_id === taskId && (miner === 'baseline' ? r.kind === 'baseline' : r.miner_hotkey === miner),
    ).length;
  return tasks.flatMap((task) =>
    ['baseline', ...miners].map((miner) => {
      const n = have(task.id, miner);
      return { taskId: task.id, miner, planned: task.planned, have: n, missing: Math.max(0, task.planned - n) };
    }),
  );
}

const summaryOf = (pairs: Pair[]) => {
  const missing = pairs.reduce((s, p) => s + p.missing, 0);
  return {
    pairs: pairs.length,
    planned: pairs.reduce((s, p) => s + p.planned, 0),
    have: pairs.reduce((s, p) => s + p.have, 0),
    missing,
    complete: missing === 0,
  };
};

async function coverage(query = ''): Promise<Json> {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/c/coverage${query}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Every page of a query, `limit` pairs at a time. */
async function allPages(query: string, limit: number): Promise<Pair[]> {
  const out: Pair[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page = await coverage(`?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.pairs.length).toBeLessThanOrEqual(limit);
    out.push(...page.pairs);
    cursor = page.nextCursor;
    if (cursor === null) return out;
  }
  throw new Error('more than 100 pages');
}

/** Three validators' runs on four tasks, some deleted; C's runs are the only ones of miner m3. */
async function seed(): Promise<Validator[]> {
  t = await testApp();
  await setupCompetition(t, 'c', { plannedRuns: 3 });
  // swe-a plans 2 runs of its own; the others take the competition's 3.
  const tasks = [
    { id: 'swe-a', type: 'swebench_verified', stage: 'evaluation', complexity: 'long', plannedRuns: 2 },
    { id: 'swe-b', type: 'swebench_verified', stage: 'evaluation', complexity: 'short' },
    { id: 'swe-c', type: 'swebench_verified', stage: 'screener_2' },
    { id: 'qna', type: 'swe_atlas_qna', stage: 'evaluation', qna },
    { id: 'swe-s1', type: 'swebench_verified', stage: 'screener_1' },
  ];
  const res = await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [A, B, C] = (await createValidators(t, 3)) as [Validator, Validator, Validator];
  await postRuns(t, A.headers, [
    run('a1', 'swe-a', 'm1'),
    run('a2', 'swe-a', 'm1', false),
    run('a3', 'swe-a', 'm1'),
    run('a4', 'swe-a', null),
    run('a5', 'swe-b', 'm2'),
    run('a6', 'qna', 'm1'),
    run('a7', 'swe-s1', 'm5'),
  ]);
  await postRuns(t, B.headers, [
    run('b1', 'swe-a', null),
    run('b2', 'swe-b', null),
    run('b3', 'swe-c', 'm2'),
    run('b4', 'swe-b', 'm4'),
    run('b5', 'swe-b', 'm2', false),
  ]);
  await postRuns(t, C.headers, [run('c1', 'swe-a', 'm3'), run('c2', 'swe-b', 'm3'), run('c3', 'swe-a', 'm1')]);
  await postRuns(t, admin, [run('admin1', 'swe-c', null)]);
  return [A, B, C];
}

describe('coverage', () => {
  it('equals a count over the stored runs, after deletions and exclusions', async () => {
    const [A, B, C] = (await seed()) as [Validator, Validator, Validator];
    const stages = ['screener_2', 'evaluation'];
    let body = await coverage();
    expect(body.stages).toEqual(stages);
    expect(body.pairs).toEqual(await expected(stages, 3));
    expect(body.summary).toEqual(summaryOf(body.pairs));
    expect(body.nextCursor).toBeNull();
    // m5 ran only a screener_1 task: it takes part, so it has pairs on the chosen stages' tasks.
    expect(body.pairs).toContainEqual({ taskId: 'swe-b', miner: 'm5', planned: 3, have: 0, missing: 3 });
    // swe-a plans 2: m1's 3 runs there leave nothing missing.
    expect(body.pairs).toContainEqual({ taskId: 'swe-a', miner: 'm1', planned: 2, have: 4, missing: 0 });

    // Deleted runs no longer count; m4's only run gone, m4 has no pairs.
    for (const [v, runId] of [
      [B, 'b4'],
      [A, 'a2'],
      [B, 'b1'],
    ] as const) {
      const del = await t.call({ method: 'DELETE', url: `/v1/competitions/c/runs/${runId}`, headers: v.headers });
      expect(del.status).toBe(200);
    }
    // An excluded validator's runs do not count; m3, known only through C, has no pairs.
    const ex = await t.call({
      method: 'PUT',
      url: `/v1/competitions/c/validators/${C.id}`,
      headers: admin,
      payload: { excluded: true },
    });
    expect(ex.status).toBe(201);
    body = await coverage();
    const want = await expected(stages, 3);
    expect(body.pairs).toEqual(want);
    expect(body.summary).toEqual(summaryOf(want));
    expect(want.some((p) => p.miner === 'm3' || p.miner === 'm4')).toBe(false);
    expect(want.find((p) => p.taskId === 'swe-a' && p.miner === 'm1')).toMatchObject({ have: 2, missing: 0 });

    // Other stages, the filters, and every page put together.
    expect((await coverage('?stages=screener_1')).pairs).toEqual(await expected(['screener_1'], 3));
    const missing = want.filter((p) => p.missing > 0);
    expect((await coverage('?missing=true')).pairs).toEqual(missing);
    expect((await coverage('?missing=true')).summary).toEqual(summaryOf(want));
    const baseline = want.filter((p) => p.miner === 'baseline');
    expect(await coverage('?miner=baseline')).toMatchObject({ pairs: baseline, summary: summaryOf(baseline) });
    const m1 = want.filter((p) => p.miner === 'm1' && p.taskId === 'qna');
    expect(await coverage('?miner=m1&task=qna')).toMatchObject({ pairs: m1, summary: summaryOf(m1) });
    for (const limit of [1, 2, 5]) {
      expect(await allPages('missing=false', limit)).toEqual(want);
      expect(await allPages('missing=true', limit)).toEqual(missing);
    }

    // The competition's plannedRuns changes every pair without a task setting of its own.
    const put = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c',
      headers: admin,
      payload: { name: 'Trust', plannedRuns: 1 },
    });
    expect(put.status).toBe(200);
    expect((await coverage()).pairs).toEqual(await expected(stages, 1));
  });

  it('is complete when no pair misses a run', async () => {
    t = await testApp();
    await setupCompetition(t, 'c', { plannedRuns: 1 });
    const [A] = (await createValidators(t, 1)) as [Validator];
    const tasks = ['swe-a', 'swe-b', 'swe-c', 'qna'];
    await postRuns(t, A.headers, [
      ...tasks.map((id) => run(`base-${id}`, id, null)),
      ...tasks.slice(1).map((id) => run(`m1-${id}`, id, 'm1')),
    ]);
    const before = await coverage();
    expect(before.summary).toEqual({ pairs: 8, planned: 8, have: 7, missing: 1, complete: false });
    expect(before.pairs.filter((p: Pair) => p.missing > 0)).toEqual([
      { taskId: 'swe-a', miner: 'm1', planned: 1, have: 0, missing: 1 },
    ]);
    await postRuns(t, A.headers, [run('m1-swe-a', 'swe-a', 'm1')]);
    const after = await coverage('?missing=true');
    expect(after).toMatchObject({ summary: { missing: 0, complete: true }, pairs: [], nextCursor: null });
  });

  it("counts the metagraph's miners with no run yet, not its validators nor the burn uid (SPEC 13)", async () => {
    t = await testApp();
    await setupCompetition(t, 'c', { plannedRuns: 1 });
    const [A] = (await createValidators(t, 1)) as [Validator];
    const tasks = ['swe-a', 'swe-b', 'swe-c', 'qna'];
    await postRuns(t, A.headers, [
      ...tasks.map((id) => run(`base-${id}`, id, null)),
      ...tasks.map((id) => run(`m1-${id}`, id, 'm1')),
    ]);
    expect((await coverage()).summary.complete).toBe(true);
    const [owner, waiting, validator] = [1, 2, 3].map((n) => keypairFromSeed(new Uint8Array(32).fill(n)).address);
    const metagraph = {
      netuid: 7,
      block: 100,
      burnUid: 0,
      neurons: [
        { uid: 0, hotkey: owner },
        { uid: 4, hotkey: waiting },
        { uid: 9, hotkey: validator, validator: true },
      ],
    };
    const put = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/metagraph',
      headers: admin,
      payload: metagraph,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const after = await coverage('?missing=true');
    // Four tasks: the registered miner with no run misses one run on each; the owner at the burn
    // uid and the validator take no part.
    expect(after.summary).toEqual({ pairs: 12, planned: 12, have: 8, missing: 4, complete: false });
    expect(after.pairs).toEqual(
      [...tasks].sort().map((taskId) => ({ taskId, miner: waiting, planned: 1, have: 0, missing: 1 })),
    );
  });

  it('answers 304 to a current ETag, and a new one after a write', async () => {
    const [A] = (await seed()) as [Validator];
    const first = await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?missing=true' });
    const etag = String(first.headers.etag);
    const again = await t.call({
      method: 'GET',
      url: '/v1/competitions/c/coverage?missing=true',
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    await postRuns(t, A.headers, [run('new', 'swe-b', 'm2')]);
    const changed = await t.call({
      method: 'GET',
      url: '/v1/competitions/c/coverage?missing=true',
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.pairs).toEqual((await expected(['screener_2', 'evaluation'], 3)).filter((p) => p.missing > 0));
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=10001', 'limit'],
    ['?missing=yes', 'missing'],
    ['?cursor=nope', 'cursor'],
    ['?miner=a%20b', 'miner'],
    ['?stages=final', 'stages'],
  ])('refuses %s with a 400 naming the parameter', async (query, name) => {
    t = await testApp();
    await setupCompetition(t);
    const res = await t.call({ method: 'GET', url: `/v1/competitions/c/coverage${query}` });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain(`querystring/${name}`);
  });

  it('is a 404 for an unknown competition', async () => {
    t = await testApp();
    expect((await t.call({ method: 'GET', url: '/v1/competitions/none/coverage' })).status).toBe(404);
  });
});

const spec: fc.Arbitrary<RunSpec> = fc.record({
  task: fc.integer({ min: 0, max: TASK_IDS.length - 1 }),
  baseline: fc.integer({ min: 0, max: 3 }).map((k) => k === 0),
  miner: fc.integer({ min: 0, max: 3 }),
  resolved: fc.boolean(),
  tokens: fc.constant(null),
  votes: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })),
});

it('equals the count over the stored runs for random runs, deletions and an exclusion', async () => {
  const scenario = fc.record({
    runs: fc.array(fc.record({ v: fc.integer({ min: 0, max: 2 }), spec }), { minLength: 1, maxLength: 25 }),
    deletions: fc.array(fc.nat(), { maxLength: 6 }),
    exclude: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
    stages: fc.constantFrom('', '?stages=evaluation', '?stages=screener_2'),
  });
  // Each case closes the one before; afterEach closes the last.
  let previous: TestApp | null = null;
  await fc.assert(
    fc.asyncProperty(scenario, async ({ runs, deletions, exclude, stages }) => {
      if (previous) await previous.close();
      t = previous = await testApp();
      await setupCompetition(t);
      const validators = await createValidators(t, 3);
      const sent = runs.map((r, i) => ({ runId: `r${i}`, v: r.v, body: runBody(`r${i}`, r.spec) }));
      for (const r of sent) await postRuns(t, validators[r.v]!.headers, [r.body]);
      for (const pick of deletions) {
        const [r] = sent.splice(pick % Math.max(1, sent.length), 1);
        if (!r) break;
        const url = `/v1/competitions/c/runs/${r.runId}`;
        expect((await t.call({ method: 'DELETE', url, headers: validators[r.v]!.headers })).status).toBe(200);
      }
      if (exclude !== null) {
        const url = `/v1/competitions/c/validators/${validators[exclude]!.id}`;
        const res = await t.call({ method: 'PUT', url, headers: admin, payload: { excluded: true } });
        expect(res.status).toBe(201);
      }
      const body = await coverage(stages);
      const want = await expected(body.stages, 5);
      expect(body.pairs).toEqual(want);
      expect(body.summary).toEqual(summaryOf(want));
      const missing = await allPages(`${stages ? stages.slice(1) : ''}&missing=true`, 3);
      expect(missing).toEqual(want.filter((p) => p.missing > 0));
    }),
    { numRuns: 15, seed: 0x4013 },
  );
}, 120_000);
