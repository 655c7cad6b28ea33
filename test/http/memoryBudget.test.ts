// Competitions not used for a while give back their in-memory state (src/services/residency.ts,
// SCORING_MEMORY_BUDGET_MB): a read after the release answers the very bodies, with the same
// ETags, as before it; a write that comes while one is released, or while the release is under
// way, is in the next read. On both engines (the store's in-memory pairs are per engine).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { viewBodies } from '../../src/http/viewBodies.js';
import { scoresService } from '../../src/services/scores/index.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { prng } from '../support/prng.js';

const TASKS = ['T1', 'T2', 'T3', 'T4'];
const HOTKEYS = [1, 2, 3, 4, 5].map((n) => encodeSs58(new Uint8Array(32).fill(n + 10)));

let t: TestApp;
const keys: Record<string, string> = {};
beforeEach(async () => {
  // 0: only the competition used last keeps its state.
  t = await testApp({ memoryBudgetMb: 0 });
  for (const [i, id] of ['alpha', 'beta'].entries()) await competition(id, i + 1);
});
afterEach(() => t.close());

let nextRun = 0;
function runs(seed: number, count: number) {
  const pick = prng(seed).below;
  return Array.from({ length: count }, () => {
    const taskId = TASKS[pick(TASKS.length)]!;
    const baseline = pick(4) === 0;
    return {
      runId: `r${nextRun++}`,
      taskId,
      resolved: pick(3) !== 0,
      tokens: { input: 300 + pick(1200), cachedInput: pick(300), output: 30 + pick(120) },
      ...(baseline ? { kind: 'baseline' } : { kind: 'miner', minerHotkey: HOTKEYS[pick(HOTKEYS.length)]! }),
    };
  });
}

async function post(id: string, seed: number, count = 40): Promise<void> {
  const res = await t.call({
    method: 'POST',
    url: `/v1/competitions/${id}/runs`,
    headers: { authorization: `Bearer ${keys[id]}` },
    payload: { runs: runs(seed, count) },
  });
  expect(res.status).toBe(200);
}

async function competition(id: string, seed: number): Promise<void> {
  keys[id] = (await seedCompetition(t, id)).validatorKey;
  const tasks = TASKS.map((task, i) => ({
    id: task,
    type: 'swebench_verified',
    complexity: ['short', 'long'][i % 2],
    stage: ['screener_1', 'evaluation'][i % 2],
  }));
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  const neurons = [
    { uid: 0, hotkey: encodeSs58(new Uint8Array(32).fill(1)) },
    ...HOTKEYS.map((h, i) => ({ uid: i + 1, hotkey: h })),
  ];
  expect(
    (
      await t.call({
        method: 'PUT',
        url: `/v1/competitions/${id}/metagraph`,
        headers: admin,
        payload: { netuid: 3, block: 10, neurons, burnUid: 0 },
      })
    ).status,
  ).toBe(200);
  await post(id, seed * 100, 200);
}

/** Every read kept with the scores or made from their input: body and ETag of each. */
async function reads(id: string): Promise<Record<string, { status: number; body: string; etag: unknown }>> {
  const base = `/v1/competitions/${id}`;
  const urls = [
    `${base}/leaderboard`,
    `${base}/leaderboard?limit=2&offset=1`,
    `${base}/weights`,
    `${base}/weights/chain`,
    `${base}/coverage`,
    `${base}/coverage?limit=3`,
    `${base}/validators`,
    `${base}/leaderboard?stages=screener_1`,
    ...HOTKEYS.map((h) => `${base}/miners/${h}`),
    ...TASKS.map((task) => `${base}/tasks/${task}`),
  ];
  const out: Record<string, { status: number; body: string; etag: unknown }> = {};
  for (const url of urls) {
    const res = await t.app.inject({ method: 'GET', url });
    out[url] = { status: res.statusCode, body: res.body, etag: res.headers.etag };
  }
  return out;
}

/**
 * Sweeps until every competition but `kept`, read before each sweep so it is the one used last, has
 * given its state back: one used since the sweep before is kept, and the server's own sweeps
 * (every 2 s) and, on PostgreSQL, a write's notification coming back late may come between.
 */
async function sweep(kept: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await t.app.inject({ method: 'GET', url: `/v1/competitions/${kept}/leaderboard` });
    await t.app.services.scores.sweep();
  }
}

/** The leaderboard as a store with nothing in memory computes it from the database. */
async function fromScratch(id: string): Promise<string> {
  const store = await t.freshStore();
  const fresh = scoresService(store);
  try {
    const body = await viewBodies().body(await fresh.leaderboard(id));
    return body.bytes.toString('utf8');
  } finally {
    fresh.close();
    await store.close();
  }
}

it('releases the least recently used competition, whose reads then answer the same bodies and ETags', async () => {
  const alpha = await reads('alpha');
  const beta = await reads('beta');
  for (const [url, r] of Object.entries(alpha)) expect(r.status, `${url} ${r.body}`).toBe(200);
  expect(await t.store.scoringInput.held('alpha')).toBeGreaterThan(0);
  expect(await t.store.scoringInput.held('beta')).toBeGreaterThan(0);

  // beta used last: alpha gives its pairs back, beta keeps them.
  await sweep('beta');
  expect(await t.store.scoringInput.held('alpha')).toBe(0);
  expect(await t.store.scoringInput.held('beta')).toBeGreaterThan(0);

  expect(await reads('alpha')).toEqual(alpha);
  // Now alpha used last: beta gives its state back, and reads the same too.
  await sweep('alpha');
  expect(await t.store.scoringInput.held('beta')).toBe(0);
  expect(await reads('beta')).toEqual(beta);
  expect(await reads('alpha')).toEqual(alpha);
});

it("counts the bytes made from a competition's scores, and lets them go with its release", async () => {
  const before = await reads('alpha');
  await reads('beta');
  expect(t.app.views.bytes('alpha')).toBeGreaterThan(before['/v1/competitions/alpha/leaderboard']!.body.length);
  await sweep('beta');
  expect(t.app.views.bytes('alpha')).toBe(0);
  expect(t.app.views.bytes('beta')).toBeGreaterThan(0);
  // Its leaderboard made again from the final scores it kept, with no pairs held: those bytes
  // alone count, and the next sweep releases it for them.
  const url = '/v1/competitions/alpha/leaderboard';
  expect((await t.app.inject({ method: 'GET', url })).body).toBe(before[url]!.body);
  expect(await t.store.scoringInput.held('alpha')).toBe(0);
  expect(t.app.views.bytes('alpha')).toBeGreaterThan(0);
  await sweep('beta');
  expect(t.app.views.bytes('alpha')).toBe(0);
  expect(await reads('alpha')).toEqual(before);
  expect(t.app.views.bytes('alpha')).toBeGreaterThan(0);
});

it('keeps the leaderboard and weights of a released competition: no computation to answer them', async () => {
  const before = await reads('alpha');
  await reads('beta');
  await sweep('beta');
  const computed = await computations();
  const url = '/v1/competitions/alpha/leaderboard';
  const res = await t.app.inject({ method: 'GET', url });
  expect(res.body).toBe(before[url]!.body);
  expect((await t.app.inject({ method: 'GET', url: '/v1/competitions/alpha/weights' })).statusCode).toBe(200);
  expect(await computations()).toBe(computed);
  expect(await t.store.scoringInput.held('alpha')).toBe(0);
});

it("answers a released competition's whole leaderboard from the very body kept across the release, until a write", async () => {
  const url = '/v1/competitions/alpha/leaderboard';
  const before = await reads('alpha');
  const kept = () => {
    const view = t.app.services.scores.kept('leaderboard', 'alpha');
    return view && t.app.views.bodyNow(view);
  };
  const made = kept();
  expect(made?.bytes.toString('utf8')).toBe(before[url]!.body);
  await reads('beta');
  await sweep('beta');
  expect(await t.store.scoringInput.held('alpha')).toBe(0);
  expect(t.app.views.bytes('alpha')).toBe(0);
  // Made already: the read ahead of the router (src/http/fastReads.ts) answers it, nothing serialized again.
  expect(kept()).toBe(made);
  const res = await t.app.inject({ method: 'GET', url });
  expect([res.body, res.headers.etag]).toEqual([before[url]!.body, before[url]!.etag]);
  expect((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': made!.etag } })).statusCode).toBe(304);

  // Released again, then written: the write ends the kept body.
  await sweep('beta');
  expect(kept()).toBe(made);
  await sweep('beta');
  await post('alpha', 11);
  expect(kept()).toBeUndefined();
  const after = await t.app.inject({ method: 'GET', url });
  expect(after.body).toBe(await fromScratch('alpha'));
  expect(after.body).not.toBe(before[url]!.body);
  expect(after.headers.etag).not.toBe(before[url]!.etag);
});

it('loses no write that comes while a competition is released or being released', async () => {
  await reads('alpha');
  await reads('beta');
  // A write to alpha while the sweep that releases it runs.
  await Promise.all([sweep('beta'), post('alpha', 7)]);
  const leaderboard = async () =>
    (await t.app.inject({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
  expect(await leaderboard()).toBe(await fromScratch('alpha'));

  // Released for sure, then written, then read.
  await sweep('beta');
  expect(await t.store.scoringInput.held('alpha')).toBe(0);
  await post('alpha', 8);
  expect(await leaderboard()).toBe(await fromScratch('alpha'));
  // Written while held, released, then read: the mirror read again holds the write.
  await reads('alpha');
  await post('alpha', 9);
  await sweep('beta');
  expect(await leaderboard()).toBe(await fromScratch('alpha'));
});

async function computations(): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('scoring_computation_seconds_count'));
  return Number(line?.split(' ')[1]);
}
