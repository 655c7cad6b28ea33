// SPEC 6, 13: a miner the operator excluded takes part in nothing, coverage included. It has no
// pairs and does not enter the summary, whether it is known from its runs or only from the
// metagraph; the read's ETag moves when it is excluded and when it is included again, and a
// restarted server (nothing in memory) answers what the running one did.
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { keypairFromSeed } from '../../src/client/sign.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('coverage-excluded');
afterAll(() => dir.remove());

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const url = '/v1/competitions/e1/coverage';

async function put(app: TestApp, path: string, payload: Record<string, unknown>, status = 200): Promise<void> {
  const res = await app.call({ method: 'PUT', url: `/v1/competitions/e1${path}`, headers: admin, payload });
  expect([status, 201], `${path}: ${JSON.stringify(res.body)}`).toContain(res.status);
}

async function read(app: TestApp, query = '') {
  const res = await app.call({ method: 'GET', url: `${url}${query}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { body: res.body, etag: String(res.headers.etag) };
}

const exclude = (app: TestApp, hotkey: string, excluded: boolean) =>
  put(app, `/miners/${hotkey}`, excluded ? { excluded, reason: 'test' } : { excluded });

/** The tester's repro: one task planning 2 runs, a run of miner mx, two baseline runs. */
async function repro(app: TestApp): Promise<void> {
  await put(app, '', { name: 'e1' });
  await put(app, '/tasks', { tasks: [{ id: 't1', type: 'swebench_verified', plannedRuns: 2 }] });
  const runs = [
    { runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'mx', resolved: true },
    { runId: 'b1', taskId: 't1', kind: 'baseline', resolved: true },
    { runId: 'b2', taskId: 't1', kind: 'baseline', resolved: false },
  ];
  const res = await app.call({ method: 'POST', url: '/v1/competitions/e1/runs', headers: admin, payload: { runs } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const baselinePair = { taskId: 't1', miner: 'baseline', planned: 2, have: 2, missing: 0 };
const mxPair = { taskId: 't1', miner: 'mx', planned: 2, have: 1, missing: 1 };

describe('coverage of excluded miners', () => {
  it('lists no pair of an excluded miner and leaves it out of the summary; the ETag follows', async () => {
    t = await testApp();
    await repro(t);
    const before = await read(t);
    expect(before.body.pairs).toEqual([baselinePair, mxPair]);
    expect(before.body.summary).toEqual({ pairs: 2, planned: 4, have: 3, missing: 1, complete: false });

    await exclude(t, 'mx', true);
    const lb = await t.call({ method: 'GET', url: '/v1/competitions/e1/leaderboard' });
    expect(lb.body.miners).toMatchObject([{ hotkey: 'mx', rank: null }]);
    const excluded = await read(t);
    expect(excluded.body.pairs).toEqual([baselinePair]);
    expect(excluded.body.summary).toEqual({ pairs: 1, planned: 2, have: 2, missing: 0, complete: true });
    expect(excluded.etag).not.toBe(before.etag);
    const stale = await t.call({ method: 'GET', url, headers: { 'if-none-match': before.etag } });
    expect(stale.status).toBe(200);
    expect((await read(t, '?miner=mx')).body).toMatchObject({
      pairs: [],
      summary: { pairs: 0, planned: 0, have: 0, missing: 0, complete: true },
    });
    expect((await read(t, '?missing=true')).body.pairs).toEqual([]);

    // Included again: its pair is back, and a client holding the ETag of the excluded list reads it.
    await exclude(t, 'mx', false);
    const included = await t.call({ method: 'GET', url, headers: { 'if-none-match': excluded.etag } });
    expect(included.status).toBe(200);
    expect(included.body.pairs).toEqual([baselinePair, mxPair]);
    expect(included.body.summary).toEqual(before.body.summary);
  });

  it('lists no pair of an excluded miner known only from the metagraph', async () => {
    t = await testApp();
    await repro(t);
    const waiting = keypairFromSeed(new Uint8Array(32).fill(2)).address;
    await put(t, '/metagraph', { netuid: 7, block: 100, burnUid: 0, neurons: [{ uid: 4, hotkey: waiting }] });
    const registered = await read(t);
    expect(registered.body.pairs).toEqual([
      baselinePair,
      { taskId: 't1', miner: waiting, planned: 2, have: 0, missing: 2 },
      mxPair,
    ]);

    await exclude(t, waiting, true);
    const excluded = await read(t);
    expect(excluded.body.pairs).toEqual([baselinePair, mxPair]);
    expect(excluded.body.summary).toEqual({ pairs: 2, planned: 4, have: 3, missing: 1, complete: false });
    expect(excluded.etag).not.toBe(registered.etag);

    await exclude(t, 'mx', true);
    expect((await read(t)).body).toMatchObject({ pairs: [baselinePair], summary: { pairs: 1, complete: true } });

    await exclude(t, waiting, false);
    const back = await read(t);
    expect(back.body.pairs).toEqual([baselinePair, { taskId: 't1', miner: waiting, planned: 2, have: 0, missing: 2 }]);
  });

  it('answers after a restart what the running server answered', async () => {
    const path = join(dir.dir, 'restart.db');
    t = await testApp({ path });
    await repro(t);
    const waiting = keypairFromSeed(new Uint8Array(32).fill(3)).address;
    await put(t, '/metagraph', { netuid: 7, block: 100, burnUid: 0, neurons: [{ uid: 4, hotkey: waiting }] });
    await read(t); // made in memory before the exclusions, then brought up to date
    await exclude(t, 'mx', true);
    await exclude(t, waiting, true);
    const running = await read(t);
    const runningMx = await read(t, '?miner=mx');
    expect(running.body.pairs).toEqual([baselinePair]);
    await t.close();

    t = await testApp({ path });
    const restarted = await read(t);
    expect(restarted.body).toEqual(running.body);
    expect(restarted.etag).toBe(running.etag);
    expect((await read(t, '?miner=mx')).body).toEqual(runningMx.body);
    const unchanged = await t.call({ method: 'GET', url, headers: { 'if-none-match': running.etag } });
    expect(unchanged.status).toBe(304);

    await exclude(t, 'mx', false);
    expect((await read(t)).body.pairs).toEqual([baselinePair, mxPair]);
  });
});
