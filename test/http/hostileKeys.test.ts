// Ids that name properties of every JavaScript object (`__proto__`, `constructor`, `toString`, …)
// are ordinary ids: miners and tasks so named are stored, scored and read back everywhere, by
// the live reads, the score of a document, exports, snapshots and their verification. A record
// keyed by ids built by assigning to a plain object, or read through a zod record, would lose
// `__proto__` (the assignment sets the prototype) or find an inherited `constructor`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { csvObjects } from '../support/csv.js';

const KEYS = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'];
const sorted = [...KEYS].sort();
/** Own keys of a parsed JSON object (JSON.parse keeps `__proto__` as an own key). */
const keysOf = (o: object) => Object.keys(o).sort();

let t: TestApp;
let validatorKey: string;
beforeAll(async () => {
  t = await testApp();
  ({ validatorKey } = await seedCompetition(t, 'c'));
  const tasks = KEYS.map((id) => ({ id, type: 'swebench_verified', stage: 'evaluation' }));
  const put = await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } });
  expect(put.body).toEqual({ imported: KEYS.length, updated: 0, unchanged: 0 });
  const runs = KEYS.flatMap((taskId, ti) => [
    { runId: `b-${ti}`, taskId, kind: 'baseline', resolved: true, tokens: { input: 1000, output: 100 } },
    ...KEYS.map((minerHotkey, mi) => ({
      runId: `r-${ti}-${mi}`,
      taskId,
      kind: 'miner',
      minerHotkey,
      resolved: (ti + mi) % 2 === 0,
      tokens: { input: 500 + mi * 100, output: 50 },
    })),
  ]);
  const posted = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: { authorization: `Bearer ${validatorKey}` },
    payload: { runs },
  });
  expect(posted.body).toEqual({ accepted: runs.length, duplicates: 0 });
});
afterAll(async () => t.close());

const get = async (url: string) => {
  const res = await t.call({ method: 'GET', url, headers: admin });
  expect(res.status, url).toBe(200);
  return res.body;
};

describe('hotkeys and task ids named like object properties', () => {
  it('the leaderboard and the weights list every miner', async () => {
    const lb = await get('/v1/competitions/c/leaderboard');
    expect(lb.miners.map((m: { hotkey: string }) => m.hotkey).sort()).toEqual(sorted);
    const w = await get('/v1/competitions/c/weights');
    expect(keysOf(w.rawWeights)).toEqual(sorted);
    expect(keysOf(w.finalWeights)).toEqual(sorted);
    const some = await get('/v1/competitions/c/leaderboard?hotkeys=__proto__,constructor');
    expect(some.miners.map((m: { hotkey: string }) => m.hotkey).sort()).toEqual(['__proto__', 'constructor']);
  });

  it.each(KEYS)('the miner and the task %s read back', async (key) => {
    const miner = await get(`/v1/competitions/c/miners/${key}`);
    expect(miner.hotkey).toBe(key);
    expect(miner.tasks.map((x: { taskId: string }) => x.taskId).sort()).toEqual(sorted);
    const task = await get(`/v1/competitions/c/tasks/${key}`);
    expect(task.id).toBe(key);
    const run = await get(`/v1/competitions/c/runs/r-${KEYS.indexOf(key)}-${KEYS.indexOf(key)}`);
    expect(run).toMatchObject({ taskId: key, minerHotkey: key });
  });

  it('exports carry every hotkey and task id', async () => {
    const csv = (
      await t.app.inject({ method: 'GET', url: '/v1/competitions/c/runs/export?format=csv', headers: admin })
    ).body;
    const rows = csvObjects(csv);
    expect([...new Set(rows.map((r) => r.minerHotkey).filter((h) => h !== ''))].sort()).toEqual(sorted);
    expect([...new Set(rows.map((r) => r.taskId))].sort()).toEqual(sorted);
    const ndjson = (await t.app.inject({ method: 'GET', url: '/v1/competitions/c/tasks/export', headers: admin })).body;
    const ids = ndjson
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids.sort()).toEqual(sorted);
  });

  it('a snapshot keeps them, its input scores to it through POST /v1/score, and it verifies', async () => {
    const taken = await t.app.inject({
      method: 'POST',
      url: '/v1/competitions/c/snapshots',
      headers: admin,
      payload: {},
    });
    expect(taken.statusCode).toBe(201);
    const snapshot = JSON.parse(taken.body);
    expect(keysOf(snapshot.weights.finalWeights)).toEqual(sorted);
    const input = (await t.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${snapshot.seq}/input` }))
      .body;
    const scored = await t.call({
      method: 'POST',
      url: '/v1/score',
      headers: { authorization: `Bearer ${validatorKey}`, 'content-type': 'application/x-ndjson' },
      payload: input,
    });
    expect(scored.status).toBe(200);
    expect(keysOf(scored.body.weights.finalWeights)).toEqual(sorted);
    expect(scored.body).toEqual({ leaderboard: snapshot.leaderboard, weights: snapshot.weights });
    const read = (await t.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${snapshot.seq}` })).body;
    const verified = verifySnapshot({ snapshot: read, input });
    expect(verified.checks.filter((c) => c.ok === false)).toEqual([]);
    expect(verified.ok).toBe(true);
    const history = await get('/v1/competitions/c/weights/history');
    expect(keysOf(history.history[0].finalWeights)).toEqual(sorted);
    const mine = await get('/v1/competitions/c/miners/__proto__/history');
    expect(mine.history).toHaveLength(1);
    expect(mine.history[0].finalWeight).toBe(snapshot.weights.finalWeights.__proto__);
  });

  it('a miner so named is excluded and readmitted like any other', async () => {
    const put = (excluded: boolean) =>
      t.call({ method: 'PUT', url: '/v1/competitions/c/miners/constructor', headers: admin, payload: { excluded } });
    const own = (o: object, key: string) => Object.getOwnPropertyDescriptor(o, key)?.value as unknown;
    expect((await put(true)).status).toBe(200);
    const w = await get('/v1/competitions/c/weights');
    expect(own(w.finalWeights, 'constructor') ?? 0).toBe(0);
    const lb = await get('/v1/competitions/c/leaderboard?hotkeys=constructor');
    expect(lb.miners[0]).toMatchObject({ hotkey: 'constructor', excluded: true });
    expect((await put(false)).status).toBe(200);
    expect(own((await get('/v1/competitions/c/weights')).finalWeights, 'constructor')).toEqual(expect.any(Number));
  });
});
