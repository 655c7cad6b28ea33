// Idempotency and atomicity of POST /runs: a resend changes nothing, a conflicting resend or a bad
// run rejects the whole batch and stores nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let v: { authorization: string };
const url = '/v1/competitions/comp/runs';

const run = (runId: string, extra: Record<string, unknown> = {}) => ({
  runId,
  taskId: 'T1',
  kind: 'miner',
  minerHotkey: 'alice',
  attemptNo: 0,
  resolved: true,
  tokens: { input: 100, cachedInput: 50, output: 10 },
  ...extra,
});
const post = (runs: unknown[]) => t.call({ method: 'POST', url, headers: v, payload: { runs } });
const getRun = (id: string) => t.call({ method: 'GET', url: `${url}/${id}` });
/** Everything a batch could change: counts, stored rows and aggregates, the leaderboard, one task view. */
async function snapshot() {
  const [rows] = await t.query({
    sqlite: 'SELECT count(*) AS n, coalesce(sum(resolved), 0) AS resolved FROM runs',
    postgres: 'SELECT count(*) AS n, count(*) FILTER (WHERE resolved) AS resolved FROM runs',
  });
  const [aggregates] = await t.query(
    'SELECT count(*) AS n, coalesce(sum(runs), 0) AS runs, coalesce(sum(resolved), 0) AS resolved FROM miner_tasks',
  );
  const c = await t.call({ method: 'GET', url: '/v1/competitions/comp' });
  const lb = await t.call({ method: 'GET', url: '/v1/competitions/comp/leaderboard' });
  const task = await t.call({ method: 'GET', url: '/v1/competitions/comp/tasks/T1' });
  return { counts: c.body.counts, rows, aggregates, leaderboard: lb.body, task: task.body };
}

beforeEach(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t);
  v = { authorization: `Bearer ${validatorKey}` };
  const tasks = await t.call({
    method: 'PUT',
    url: '/v1/competitions/comp/tasks',
    headers: admin,
    payload: {
      tasks: [
        { id: 'T1', type: 'swebench_verified', complexity: 'short' },
        { id: 'T2', type: 'swebench_verified', complexity: 'long' },
      ],
    },
  });
  expect(tasks.status).toBe(200);
  const base = [0, 1, 2].map((i) => ({
    runId: `b${i}`,
    taskId: 'T1',
    kind: 'baseline',
    resolved: true,
    tokens: { input: 300, output: 20 },
  }));
  const first = await post([...base, run('r1'), run('r2', { resolved: false }), run('r3', { minerHotkey: 'bob' })]);
  expect(first.body).toEqual({ accepted: 6, duplicates: 0 });
});

afterEach(async () => {
  await t.close();
});

describe('resending runs', () => {
  it('counts an identical resend as duplicates and changes nothing', async () => {
    const before = await snapshot();
    expect(before.counts).toEqual({ tasks: 2, miners: 2, runs: 6 });
    expect(before.leaderboard.miners.map((m: { hotkey: string }) => m.hotkey)).toEqual(['alice', 'bob']);
    const stored = await getRun('r1');

    const again = await post([run('r1'), run('r2', { resolved: false }), run('r3', { minerHotkey: 'bob' })]);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ accepted: 0, duplicates: 3 });
    expect(await snapshot()).toEqual(before);
    expect((await getRun('r1')).body).toEqual(stored.body); // same createdAt: not rewritten
  });

  it('treats key order and a mix of old and new runs correctly', async () => {
    // Same content, keys in another order: still a duplicate.
    const reordered = {
      tokens: { output: 10, cachedInput: 50, input: 100 },
      resolved: true,
      attemptNo: 0,
      minerHotkey: 'alice',
      kind: 'miner',
      taskId: 'T1',
      runId: 'r1',
    };
    const mixed = await post([reordered, run('r4')]);
    expect(mixed.body).toEqual({ accepted: 1, duplicates: 1 });
    expect((await snapshot()).counts.runs).toBe(7);
    expect((await getRun('r4')).status).toBe(200);
  });

  it('numbers the new runs of a batch with stored ones among them without gaps in the run sequence', async () => {
    // New, stored, new: a stored id takes no number of the sequence; nor do the ids of a batch all stored.
    expect((await post([run('r4'), run('r1'), run('r5'), run('r2', { resolved: false })])).body).toEqual({
      accepted: 2,
      duplicates: 2,
    });
    expect((await post([run('r4'), run('r5')])).body).toEqual({ accepted: 0, duplicates: 2 });
    expect((await post([run('r6')])).body).toEqual({ accepted: 1, duplicates: 0 });
    const rows = (await t.query('SELECT run_id, seq FROM runs ORDER BY seq')) as { run_id: string; seq: number }[];
    expect(rows.map((r) => r.run_id).slice(-3)).toEqual(['r4', 'r5', 'r6']);
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });

  it('stores a batch of many runs in order, a stored one inside a chunk of the insert among them', async () => {
    // SQLite inserts a batch in multi-row statements (src/db/runs.ts): a stored id refuses its
    // whole statement, whose new runs must still be stored, once, in the batch's order.
    const before = await snapshot();
    const fresh = Array.from({ length: 45 }, (_, i) => run(`m${i}`, { attemptNo: i, resolved: i % 3 === 0 }));
    const batch = [...fresh.slice(0, 21), run('r1'), ...fresh.slice(21, 40), run('r3', { minerHotkey: 'bob' })];
    batch.push(...fresh.slice(40));
    expect((await post(batch)).body).toEqual({ accepted: 45, duplicates: 2 });
    const rows = (await t.query('SELECT run_id, seq FROM runs ORDER BY seq')) as { run_id: string; seq: number }[];
    expect(rows.map((r) => r.run_id).slice(-45)).toEqual(fresh.map((r) => r.runId));
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const after = await snapshot();
    expect(after.counts.runs).toBe(before.counts.runs + 45);
    const [sums] = (await t.query(
      "SELECT coalesce(sum(runs), 0) AS runs, coalesce(sum(resolved), 0) AS resolved FROM miner_tasks WHERE hotkey = 'alice'",
    )) as { runs: number; resolved: number }[];
    // alice had r1 (resolved) and r2 before; 45 new, every third resolved.
    expect([Number(sums!.runs), Number(sums!.resolved)]).toEqual([2 + 45, 1 + 15]);
    // An all-new batch of many: every run, in order.
    const more = Array.from({ length: 37 }, (_, i) => run(`k${i}`));
    expect((await post(more)).body).toEqual({ accepted: 37, duplicates: 0 });
    const last = (await t.query('SELECT run_id FROM runs ORDER BY seq')) as { run_id: string }[];
    expect(last.map((r) => r.run_id).slice(-37)).toEqual(more.map((r) => r.runId));
  });

  it('rejects a conflicting resend with a 409 naming the ids, and stores nothing of the batch', async () => {
    const before = await snapshot();
    const res = await post([
      run('r5'),
      run('r1', { resolved: false }),
      run('r3', { minerHotkey: 'bob', tokens: { input: 101, output: 10 } }),
    ]);
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 409, title: 'Conflict' });
    expect(res.body.detail).toContain('r1');
    expect(res.body.detail).toContain('r3');
    expect(res.body.detail).not.toContain('r5');
    expect(await snapshot()).toEqual(before);
    expect((await getRun('r5')).status).toBe(404);
    expect((await getRun('r1')).body.resolved).toBe(true);
  });

  it('a batch refused for a conflicting resend takes no run sequence numbers, on either engine', async () => {
    // PostgreSQL's sequences do not roll back: the conflict must be found before its new runs are
    // inserted, or the next run stored would be numbered past the refused batch's.
    const last = async () => Number(((await t.query('SELECT max(seq) AS seq FROM runs')) as { seq: number }[])[0]!.seq);
    const before = await last();
    const refused = await post([run('n1'), run('n2'), run('r1', { resolved: false }), run('n3')]);
    expect(refused.status).toBe(409);
    expect((await post([run('next')])).status).toBe(200);
    expect(Number((await getRun('next')).body.seq)).toBe(before + 1);
    expect(await last()).toBe(before + 1);
  });

  it('counts a field left out as different content', async () => {
    const { attemptNo: _omit, ...withoutAttempt } = run('r1');
    const res = await post([withoutAttempt]);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('r1');
  });
});

describe('a batch is stored whole or not at all', () => {
  it('rejects a runId repeated inside one batch with a 400 naming it', async () => {
    const before = await snapshot();
    const res = await post([run('d1'), run('d2'), run('d1', { resolved: false })]);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('urn:swe-scoring:problem:validation');
    expect(res.body.detail).toContain('d1');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body/runs/2/runId' })]));
    expect(await snapshot()).toEqual(before);
    for (const id of ['d1', 'd2']) expect((await getRun(id)).status).toBe(404);
  });

  it('rejects an unknown task with a 404 naming it, storing none of the good runs', async () => {
    const before = await snapshot();
    const res = await post([run('g1'), run('g2', { taskId: 'T2' }), run('g3', { taskId: 'NOPE' })]);
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('NOPE');
    expect(await snapshot()).toEqual(before);
    for (const id of ['g1', 'g2', 'g3']) expect((await getRun(id)).status).toBe(404);
  });

  it('rejects a bad field with a 400 at its path, storing nothing', async () => {
    const before = await snapshot();
    const res = await post([run('f1'), run('f2', { tokens: { input: -5, output: 1 } })]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'body/runs/1/tokens/input' })]),
    );
    expect(await snapshot()).toEqual(before);
    expect((await getRun('f1')).status).toBe(404);

    const missingHotkey = await post([run('f3'), { runId: 'f4', taskId: 'T1', kind: 'miner', resolved: true }]);
    expect(missingHotkey.status).toBe(400);
    expect(missingHotkey.body.detail).toContain('minerHotkey');
    expect((await getRun('f3')).status).toBe(404);
  });

  it('rejects votes on a task without a rubric with a 422 naming the run, storing nothing', async () => {
    const before = await snapshot();
    const votes = [{ criterionId: 'c1', votes: [{ verdict: 'YES' }] }];
    const res = await post([run('q1'), run('q2', { resolved: undefined, rubricVotes: votes })]);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain('q2');
    expect(await snapshot()).toEqual(before);
    expect((await getRun('q1')).status).toBe(404);
  });

  it('then accepts the corrected batch once, and only once', async () => {
    const fixed = [run('g1'), run('g2', { taskId: 'T2' })];
    expect((await post(fixed)).body).toEqual({ accepted: 2, duplicates: 0 });
    expect((await post(fixed)).body).toEqual({ accepted: 0, duplicates: 2 });
    expect((await snapshot()).counts.runs).toBe(8);
  });
});
