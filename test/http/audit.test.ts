// GET /v1/audit (API.md 1.1): every admin write and every run deletion, with actor, time, action,
// target and summary; admin only; append-only (no route changes or deletes an entry).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import { createValidators, postRuns, qna, setupCompetition, type Validator } from './trustKit.js';
import type { Json } from '../support/json.js';

const JSONL = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .slice(0, 2)
  .join('\n');

interface Entry {
  seq: number;
  at: string;
  actor: { kind: string; id: string | null };
  action: string;
  competitionId: string | null;
  target: string;
  summary: Record<string, Json>;
}

let t: TestApp;
let V: Validator;
beforeEach(async () => {
  t = await testApp();
  await setupCompetition(t); // competition.create + tasks.put
  [V] = (await createValidators(t, 1)) as [Validator];
});
afterEach(async () => t.close());

async function entries(query = ''): Promise<Entry[]> {
  const res = await t.call({ method: 'GET', url: `/v1/audit${query}`, headers: admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.entries;
}
const last = async () => (await entries('?limit=1000')).at(-1)!;
/** The request's URL for a failure message (inject also takes it as an object). */
const urlOf = (req: Parameters<TestApp['call']>[0]) =>
  typeof req.url === 'string' ? req.url : JSON.stringify(req.url);
const ok = async (req: Parameters<TestApp['call']>[0]) => {
  const res = await t.call(req);
  expect(res.status, `${req.method} ${urlOf(req)}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
};

it('records every admin write with actor, time, action, target and summary', async () => {
  const start = Date.now() - 1000;
  const initial = await entries();
  expect(initial.map((e) => e.action)).toEqual(['competition.create', 'tasks.put', 'validator.create']);
  expect(initial[0]).toMatchObject({
    actor: { kind: 'admin', id: null },
    competitionId: 'c',
    target: 'c',
    summary: { name: 'Trust' },
  });
  expect(initial[2]).toMatchObject({ target: V.id, competitionId: null, summary: { name: 'v0', hotkey: null } });

  const steps: [Parameters<TestApp['call']>[0], Partial<Entry>][] = [
    [
      { method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'Trust', burnRatio: 0.5 } },
      { action: 'competition.update', target: 'c', summary: { name: 'Trust', burnRatio: 0.5 } },
    ],
    [
      {
        method: 'PUT',
        url: '/v1/competitions/c/tasks',
        headers: admin,
        payload: { tasks: [{ id: 'extra', type: 'swebench_verified' }] },
      },
      {
        action: 'tasks.put',
        competitionId: 'c',
        summary: { imported: 1, updated: 0, unchanged: 0, taskIds: ['extra'] },
      },
    ],
    [
      {
        method: 'POST',
        url: '/v1/competitions/c/tasks/import',
        headers: { ...admin, 'content-type': 'application/x-ndjson' },
        payload: JSONL,
      },
      { action: 'tasks.import', competitionId: 'c', summary: { imported: 2, format: 'jsonl' } },
    ],
    [
      {
        method: 'PUT',
        url: '/v1/competitions/c/miners/m1',
        headers: admin,
        payload: { excluded: true, reason: 'copied' },
      },
      { action: 'miner.exclude', competitionId: 'c', target: 'm1', summary: { excluded: true, reason: 'copied' } },
    ],
    [
      { method: 'PUT', url: '/v1/competitions/c/miners/m1', headers: admin, payload: { excluded: false } },
      { action: 'miner.include', target: 'm1' },
    ],
    [
      {
        method: 'PUT',
        url: `/v1/competitions/c/validators/${V.id}`,
        headers: admin,
        payload: { excluded: true, reason: 'generous' },
      },
      {
        action: 'validator.exclude',
        competitionId: 'c',
        target: V.id,
        summary: { excluded: true, reason: 'generous', before: null },
      },
    ],
    [
      { method: 'PUT', url: `/v1/competitions/c/validators/${V.id}`, headers: admin, payload: { excluded: false } },
      {
        action: 'validator.include',
        target: V.id,
        summary: { excluded: false, reason: null, before: { excluded: true, reason: 'generous' } },
      },
    ],
    [
      {
        method: 'POST',
        url: '/v1/competitions/c/runs',
        headers: admin,
        payload: { runs: [{ runId: 'adm', taskId: 'swe-a', kind: 'baseline', resolved: true }] },
      },
      { action: 'runs.post', competitionId: 'c', summary: { accepted: 1, duplicates: 0, runIds: ['adm'] } },
    ],
    [
      { method: 'DELETE', url: `/v1/validators/${V.id}`, headers: admin },
      { action: 'validator.revoke', target: V.id, competitionId: null },
    ],
  ];
  for (const [req, expected] of steps) {
    await ok(req);
    const e = await last();
    expect(e, urlOf(req)).toMatchObject({ actor: { kind: 'admin', id: null }, ...expected });
    expect(Date.parse(e.at)).toBeGreaterThanOrEqual(start);
    expect(Date.parse(e.at)).toBeLessThanOrEqual(Date.now() + 1000);
  }
  // Revoking a revoked validator again is a 200 that changes nothing and records nothing.
  const revoked = (await last()).seq;
  const again = await t.call({ method: 'DELETE', url: `/v1/validators/${V.id}`, headers: admin });
  expect(again.status).toBe(200);
  expect(again.body.revokedAt).toEqual(expect.any(String));
  expect((await last()).seq).toBe(revoked);
  const all = await entries('?limit=1000');
  expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => all[0]!.seq + i));
  // Validators' own run posts are not admin writes.
  expect(all.filter((e) => e.actor.kind !== 'admin')).toEqual([]);
});

it("records every run deletion with the deleted run's content, by the validator or the admin", async () => {
  const run = {
    runId: 'r1',
    taskId: 'swe-a',
    kind: 'miner',
    minerHotkey: 'm1',
    resolved: true,
    tokens: { input: 10, output: 2 },
    agentSteps: 7,
  };
  await postRuns(t, V.headers, [run, { ...run, runId: 'r2' }]);
  const stored = await ok({ method: 'GET', url: '/v1/competitions/c/runs/r1' });
  const before = (await entries('?limit=1000')).length;
  await ok({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers: V.headers });
  const byValidator = await last();
  expect(byValidator).toMatchObject({
    actor: { kind: 'validator', id: V.id },
    action: 'run.delete',
    competitionId: 'c',
    target: 'r1',
  });
  expect(byValidator.summary.run).toEqual(stored);
  await ok({ method: 'DELETE', url: '/v1/competitions/c/runs/r2', headers: admin });
  expect(await last()).toMatchObject({
    actor: { kind: 'admin', id: null },
    action: 'run.delete',
    target: 'r2',
    summary: { run: { runId: 'r2', validatorId: V.id, agentSteps: 7 } },
  });
  expect((await entries('?limit=1000')).length).toBe(before + 2);
});

it('a refused write leaves no entry', async () => {
  await postRuns(t, V.headers, [{ runId: 'r1', taskId: 'swe-a', kind: 'baseline', resolved: true }]);
  const before = await entries('?limit=1000');
  // Changing the type of a task that has runs is a 409: the whole write, its entry included, is refused.
  const bad = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: {
      tasks: [
        { id: 'fresh', type: 'swebench_verified' },
        { id: 'swe-a', type: 'swe_atlas_qna', qna },
      ],
    },
  });
  expect(bad.status).toBe(409);
  expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/none', headers: admin })).status).toBe(404);
  expect(
    (
      await t.call({
        method: 'PUT',
        url: '/v1/competitions/c/validators/nobody',
        headers: admin,
        payload: { excluded: true },
      })
    ).status,
  ).toBe(404);
  expect(await entries('?limit=1000')).toEqual(before);
});

it('filters by competition and pages with a cursor', async () => {
  await setupCompetition(t, 'd');
  const d = await entries('?competition=d');
  expect(d.map((e) => e.action)).toEqual(['competition.create', 'tasks.put']);
  const all = await entries('?limit=1000');
  const paged: Entry[] = [];
  let cursor = '';
  for (;;) {
    const res = await t.call({
      method: 'GET',
      url: `/v1/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      headers: admin,
    });
    paged.push(...res.body.entries);
    if (!res.body.nextCursor) break;
    cursor = res.body.nextCursor;
  }
  expect(paged).toEqual(all);
  expect((await t.call({ method: 'GET', url: '/v1/audit?cursor=x', headers: admin })).status).toBe(400);
});

it('is for the admin only, and no route changes or deletes an entry', async () => {
  expect((await t.call({ method: 'GET', url: '/v1/audit' })).status).toBe(401);
  expect((await t.call({ method: 'GET', url: '/v1/audit', headers: V.headers })).status).toBe(403);
  const before = await entries('?limit=1000');
  for (const method of ['DELETE', 'PUT', 'PATCH', 'POST'] as const) {
    for (const url of ['/v1/audit', `/v1/audit/${before[0]!.seq}`]) {
      const res = await t.call({
        method,
        url,
        headers: admin,
        ...(method === 'DELETE' ? {} : { payload: { entries: [] } }),
      });
      expect([404, 405], `${method} ${url}`).toContain(res.status);
    }
  }
  expect(await entries('?limit=1000')).toEqual(before);
});
