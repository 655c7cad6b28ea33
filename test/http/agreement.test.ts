// SPEC 10 through the API: GET /v1/competitions/{id}/validators. A tiny case checked against
// hand-computed shared pairs and deltas, and a simulated competition with a generous validator.
import { afterEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import { createValidators, postRuns, setupCompetition, type Validator } from './trustKit.js';
import type { Json } from '../support/json.js';

let t: TestApp;
afterEach(async () => t?.close());

const miner = (runId: string, taskId: string, hotkey: string, resolved: boolean) => ({
  runId,
  taskId,
  kind: 'miner',
  minerHotkey: hotkey,
  resolved,
});
const baseline = (runId: string, taskId: string, resolved: boolean) => ({ runId, taskId, kind: 'baseline', resolved });

async function table(): Promise<Map<string, Json>> {
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/validators' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map(res.body.validators.map((v: { id: string }) => [v.id, v]));
}

const exclude = async (v: Validator, excluded = true) =>
  expect(
    (
      await t.call({
        method: 'PUT',
        url: `/v1/competitions/c/validators/${v.id}`,
        headers: admin,
        payload: { excluded },
      })
    ).status,
  ).toBeLessThan(300);

describe('a tiny case, by hand', () => {
  // (swe-a, m1): A 2/2, B 1/2, C 0/1. (swe-a, baseline): A 1/1, B 0/1. (swe-b, m2): A 1/1 only. (swe-b, m1): B 0/1, C 1/1.
  async function seed() {
    t = await testApp();
    await setupCompetition(t);
    const [A, B, C] = (await createValidators(t, 3)) as [Validator, Validator, Validator];
    await postRuns(t, A.headers, [
      miner('a1', 'swe-a', 'm1', true),
      miner('a2', 'swe-a', 'm1', true),
      baseline('a3', 'swe-a', true),
      miner('a4', 'swe-b', 'm2', true),
    ]);
    await postRuns(t, B.headers, [
      miner('b1', 'swe-a', 'm1', true),
      miner('b2', 'swe-a', 'm1', false),
      baseline('b3', 'swe-a', false),
      miner('b4', 'swe-b', 'm1', false),
    ]);
    await postRuns(t, C.headers, [miner('c1', 'swe-a', 'm1', false), miner('c2', 'swe-b', 'm1', true)]);
    // The admin's runs are no validator's: they change nobody's table.
    await postRuns(t, admin, [miner('admin1', 'swe-a', 'm1', false)]);
    return { A, B, C };
  }

  it('counts shared pairs and the mean resolve-rate difference against the others pooled', async () => {
    const { A, B, C } = await seed();
    const rows = await table();
    expect([...rows.keys()].sort()).toEqual([A.id, B.id, C.id].sort());
    const a = rows.get(A.id);
    expect(a).toMatchObject({
      name: 'v0',
      hotkey: null,
      excluded: false,
      runs: 4,
      baselineRuns: 1,
      minerRuns: 3,
      miners: 2,
      tasks: 2,
      resolveRate: 1,
    });
    // A: (swe-a, m1) 1 - 1/3; (swe-a, baseline) 1 - 0.
    expect(a.agreement.sharedPairs).toBe(2);
    expect(a.agreement.resolveRateDelta).toBeCloseTo((2 / 3 + 1) / 2, 12);
    // B: (swe-a, m1) 1/2 - 2/3; baseline 0 - 1; (swe-b, m1) 0 - 1.
    expect(rows.get(B.id).agreement.sharedPairs).toBe(3);
    expect(rows.get(B.id).agreement.resolveRateDelta).toBeCloseTo((-1 / 6 - 1 - 1) / 3, 12);
    expect(rows.get(B.id)).toMatchObject({
      runs: 4,
      baselineRuns: 1,
      minerRuns: 3,
      miners: 1,
      tasks: 2,
      resolveRate: 0.25,
    });
    // C: (swe-a, m1) 0 - 3/4; (swe-b, m1) 1 - 0.
    expect(rows.get(C.id).agreement).toEqual({ sharedPairs: 2, resolveRateDelta: 0.125, flagged: false });
    for (const r of rows.values()) expect(r.agreement.flagged).toBe(false); // fewer than 10 shared pairs
  });

  it('an excluded validator stays listed and compared, but is no longer one of the others', async () => {
    const { A, B, C } = await seed();
    await exclude(C);
    const rows = await table();
    expect(rows.get(C.id)).toMatchObject({
      excluded: true,
      runs: 2,
      agreement: { sharedPairs: 2, resolveRateDelta: 0.125, flagged: false },
    });
    // A: (swe-a, m1) 1 - 1/2; baseline 1 - 0.
    expect(rows.get(A.id).agreement).toEqual({ sharedPairs: 2, resolveRateDelta: 0.75, flagged: false });
    // B: (swe-a, m1) 1/2 - 1; baseline 0 - 1; (swe-b, m1) is shared with C only, which no longer counts.
    expect(rows.get(B.id).agreement).toEqual({ sharedPairs: 2, resolveRateDelta: -0.75, flagged: false });
    await exclude(C, false);
    expect((await table()).get(B.id).agreement.sharedPairs).toBe(3);
  });

  it('an excluded validator’s runs sent or deleted after the last read show in the next read (found by the SPEC audit)', async () => {
    const { C } = await seed();
    await exclude(C);
    expect((await table()).get(C.id)).toMatchObject({ runs: 2, agreement: { sharedPairs: 2 } });
    // C's new run counts in no score, but C stays in this table, compared against the others (SPEC 10):
    // (swe-a, baseline) is now shared with A and B, pooled 1/2, C 1/1.
    await postRuns(t, C.headers, [baseline('c3', 'swe-a', true)]);
    let c = (await table()).get(C.id);
    expect(c).toMatchObject({ runs: 3, baselineRuns: 1 });
    // C: (swe-a, m1) 0 - 3/4; (swe-b, m1) 1 - 0; (swe-a, baseline) 1 - 1/2.
    expect(c.agreement).toEqual({ sharedPairs: 3, resolveRateDelta: (-3 / 4 + 1 + 1 / 2) / 3, flagged: false });
    expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/c2', headers: admin })).status).toBe(200);
    c = (await table()).get(C.id);
    expect(c).toMatchObject({ runs: 2, tasks: 1 });
    expect(c.agreement).toEqual({ sharedPairs: 2, resolveRateDelta: (-3 / 4 + 1 / 2) / 2, flagged: false });
  });

  it('a validator excluded before sending anything is listed with no runs', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    await exclude(A);
    expect((await table()).get(A.id)).toMatchObject({
      excluded: true,
      runs: 0,
      resolveRate: null,
      agreement: { sharedPairs: 0, resolveRateDelta: null, flagged: false },
    });
  });
});

/** A small deterministic PRNG (mulberry32), so the simulation is the same on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

it('flags a generous validator on a simulated competition, and not the honest ones', async () => {
  t = await testApp();
  await setupCompetition(t);
  const validators = await createValidators(t, 4);
  const generous = validators[3]!;
  const random = prng(20251130);
  const skill = Array.from({ length: 5 }, (_, i) => 0.1 + 0.15 * i); // miners m0..m4: 0.1 .. 0.7
  const RUNS = 6;
  for (const [vi, v] of validators.entries()) {
    const runs: object[] = [];
    for (const task of ['swe-a', 'swe-b', 'swe-c']) {
      for (let k = 0; k < RUNS; k++) runs.push(baseline(`v${vi}-${task}-base-${k}`, task, random() < 0.4));
      skill.forEach((p, m) => {
        // The generous validator reports most failures as resolved.
        const rate = v === generous ? p + 0.7 * (1 - p) : p;
        for (let k = 0; k < RUNS; k++) runs.push(miner(`v${vi}-${task}-m${m}-${k}`, task, `m${m}`, random() < rate));
      });
    }
    await postRuns(t, v.headers, runs);
  }
  const rows = await table();
  const g = rows.get(generous.id);
  expect(g.agreement.sharedPairs).toBe(3 * 6); // 3 tasks x (5 miners + the baseline)
  expect(g.agreement.resolveRateDelta).toBeGreaterThan(0.2);
  expect(g.agreement.flagged).toBe(true);
  for (const v of validators.slice(0, 3)) {
    expect(rows.get(v.id).agreement.sharedPairs).toBe(18);
    expect(Math.abs(rows.get(v.id).agreement.resolveRateDelta)).toBeLessThan(0.2);
    expect(rows.get(v.id).agreement.flagged).toBe(false);
  }
  const before = (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body;

  // Excluded: still listed and still flagged against the honest three, who now agree among themselves.
  await exclude(generous);
  const after = await table();
  expect(after.get(generous.id)).toMatchObject({ excluded: true, agreement: { sharedPairs: 18, flagged: true } });
  for (const v of validators.slice(0, 3)) {
    expect(Math.abs(after.get(v.id).agreement.resolveRateDelta)).toBeLessThan(
      Math.abs(rows.get(v.id).agreement.resolveRateDelta) + 0.1,
    );
    expect(after.get(v.id).agreement.flagged).toBe(false);
  }
  // And its runs no longer inflate the miners' resolve rates.
  const lb = (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body;
  const rate = (body: { miners: { hotkey: string; resolveRate: number }[] }, h: string) =>
    body.miners.find((m) => m.hotkey === h)!.resolveRate;
  for (let m = 0; m < skill.length; m++) expect(rate(lb, `m${m}`)).toBeLessThan(rate(before, `m${m}`));
});
