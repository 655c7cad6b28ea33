// Coverage names a task's baseline pairs with the miner `baseline` (API.md "Coverage and validator
// liveness"), so no miner may take that hotkey: a miner run of it would make two pairs of one key,
// both chosen by `?miner=baseline`, and a cursor `t1/baseline` that pages past one of them. Every
// way a miner hotkey comes in refuses it with a 400 naming the field.
import { afterEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const base = '/v1/competitions/e1';

async function setup(app: TestApp): Promise<void> {
  for (const [url, payload] of [
    [base, { name: 'e1' }],
    [`${base}/tasks`, { tasks: [{ id: 't1', type: 'swebench_verified', plannedRuns: 2 }] }],
  ] as const) {
    const res = await app.call({ method: 'PUT', url, headers: admin, payload });
    expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
  }
}

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path);

describe("'baseline' as a miner hotkey", () => {
  it('a miner run of hotkey baseline is a 400 naming the field, and nothing is stored', async () => {
    t = await testApp();
    await setup(t);
    const post = (runs: unknown[]) =>
      t!.call({ method: 'POST', url: `${base}/runs`, headers: admin, payload: { runs } });
    // A batch otherwise well formed (the fast check's path) ...
    const sent = await post([
      { runId: 'b1', taskId: 't1', kind: 'baseline', resolved: true },
      { runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'baseline', resolved: true },
    ]);
    expect(sent.status, JSON.stringify(sent.body)).toBe(400);
    expect(paths(sent.body)).toEqual(['body/runs/1/minerHotkey']);
    expect(sent.body.detail).toContain("must not be 'baseline'");
    // ... and one the schema reads whole for another reason.
    const both = await post([
      { runId: 'export', taskId: 't1', kind: 'baseline', resolved: true },
      { runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'baseline', resolved: true },
    ]);
    expect(both.status).toBe(400);
    expect(paths(both.body)).toEqual(['body/runs/0/runId', 'body/runs/1/minerHotkey']);
    expect(await t.count('runs')).toBe(0);

    // Hotkeys that only look like it are miners like any other.
    const fine = await post([
      { runId: 'b1', taskId: 't1', kind: 'baseline', resolved: true },
      { runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'Baseline', resolved: true },
      { runId: 'r2', taskId: 't1', kind: 'miner', minerHotkey: 'baseline2', resolved: true },
    ]);
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);

    // Coverage: one baseline pair, and every pair once when paged one at a time.
    const whole = await t.call({ method: 'GET', url: `${base}/coverage` });
    expect(whole.body.pairs.map((p: { miner: string }) => p.miner)).toEqual(['baseline', 'Baseline', 'baseline2']);
    const only = await t.call({ method: 'GET', url: `${base}/coverage?miner=baseline` });
    expect(only.body.pairs).toEqual([{ taskId: 't1', miner: 'baseline', planned: 2, have: 1, missing: 1 }]);
    const paged: unknown[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await t.call({ method: 'GET', url: `${base}/coverage${q}` });
      paged.push(...page.body.pairs);
      cursor = page.body.nextCursor;
    } while (cursor !== null && paged.length < 10);
    expect(paged).toEqual(whole.body.pairs);
  });

  it('PUT …/miners/baseline is a 400 naming the hotkey, and stores nothing', async () => {
    t = await testApp();
    await setup(t);
    const res = await t.call({
      method: 'PUT',
      url: `${base}/miners/baseline`,
      headers: admin,
      payload: { excluded: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(paths(res.body)).toEqual(['params/hotkey']);
    expect(res.body.detail).toContain("must not be 'baseline'");
    expect(await t.count('miners')).toBe(0);
    // Reading a miner of that name is no write: it has no standing, as any unknown hotkey.
    expect((await t.call({ method: 'GET', url: `${base}/miners/baseline` })).status).toBe(404);
  });

  it('a metagraph neuron of hotkey baseline is a 400 naming it (not an ss58 address)', async () => {
    t = await testApp();
    await setup(t);
    const res = await t.call({
      method: 'PUT',
      url: `${base}/metagraph`,
      headers: admin,
      payload: { netuid: 7, block: 1, burnUid: 0, neurons: [{ uid: 1, hotkey: 'baseline' }] },
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['body/neurons/0/hotkey']);
  });
});
