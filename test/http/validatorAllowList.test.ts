// A competition's validator allow-list (API.md 1.2): `PUT /v1/competitions/{id}` `{validators:
// [id, …] | null}`. A validator not on the list writes nothing to the competition (a 403 naming
// it); null lets every validator write. The list is stored, audited like every admin change, and
// shown in competition reads to the admin only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let v1: { id: string; headers: Record<string, string> };
let v2: { id: string; headers: Record<string, string> };

async function validator(name: string) {
  const res = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, headers: { authorization: `Bearer ${res.body.apiKey as string}` } };
}

const put = (payload: object) =>
  t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'Listed', ...payload } });
const post = (headers: Record<string, string>, runId: string) =>
  t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers,
    payload: { runs: [{ runId, taskId: 'a', kind: 'miner', minerHotkey: 'm1', resolved: true }] },
  });

beforeEach(async () => {
  t = await testApp();
  expect((await put({ name: 'Listed' })).status).toBe(201);
  const tasks = [{ id: 'a', type: 'swebench_verified' }];
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  v1 = await validator('one');
  v2 = await validator('two');
});
afterEach(async () => t.close());

describe('validator allow-list', () => {
  it.each(['x%00y', '%00', 'a%E2%80%AEb', 'a'.repeat(129)])(
    "a validator's batch to a competition id the schema refuses (%s) is a 400 naming it, on both engines",
    async (id) => {
      // Admission reads the competition before the schema checks its id; PostgreSQL refuses a NUL in
      // text, which was a 500 there (a 400 on SQLite).
      const before = await t.dump();
      const res = await t.call({
        method: 'POST',
        url: `/v1/competitions/${id}/runs`,
        headers: v1.headers,
        payload: { runs: [{ runId: 'r', taskId: 'a', kind: 'miner', minerHotkey: 'm1', resolved: true }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('params/competitionId');
      expect(await t.dump()).toBe(before);
    },
  );

  it('without a list, every validator writes', async () => {
    expect((await post(v1.headers, 'r1')).status).toBe(200);
    expect((await post(v2.headers, 'r2')).status).toBe(200);
  });

  it('a validator off the list is a 403 naming the competition, storing nothing; one on it and the admin write', async () => {
    const set = await put({ validators: [v1.id] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'Listed', validators: [v1.id] });
    const refused = await post(v2.headers, 'r2');
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body.detail).toContain(`validator ${v2.id} may not write to competition c`);
    expect(await t.count('runs')).toBe(0);
    expect((await post(v1.headers, 'r1')).status).toBe(200);
    expect((await post(admin, 'r0')).status).toBe(200);
    // Nor may it delete a run of its own stored before the list.
    await put({ validators: null });
    expect((await post(v2.headers, 'r2')).status).toBe(200);
    await put({ validators: [v1.id] });
    const del = await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r2', headers: v2.headers });
    expect(del.status).toBe(403);
    expect(del.body.detail).toContain('competition c');
    expect(await t.count('runs')).toBe(3);
  });

  it('null lets every validator write again; a PUT without `validators` keeps the list', async () => {
    await put({ validators: [v1.id] });
    expect((await put({ burnRatio: 0.5 })).body.validators).toEqual([v1.id]);
    expect((await post(v2.headers, 'r2')).status).toBe(403);
    expect((await put({ validators: null })).body.validators).toBeNull();
    expect((await post(v2.headers, 'r2')).status).toBe(200);
  });

  it('is stored sorted, each id once; an unknown validator is a 422 naming the entry, changing nothing', async () => {
    const both = await put({ validators: [v2.id, v1.id, v2.id] });
    expect(both.body.validators).toEqual([v1.id, v2.id].sort());
    const bad = await put({ validators: [v1.id, 'nobody'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([{ path: 'body/validators/1', message: 'no validator nobody' }]);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c', headers: admin })).body.validators).toEqual(
      [v1.id, v2.id].sort(),
    );
  });

  it('is shown to the admin only, and audited', async () => {
    await put({ validators: [v1.id] });
    const forAdmin = await t.call({ method: 'GET', url: '/v1/competitions/c', headers: admin });
    expect(forAdmin.body.validators).toEqual([v1.id]);
    const listed = await t.call({ method: 'GET', url: '/v1/competitions', headers: admin });
    expect(listed.body.competitions[0].validators).toEqual([v1.id]);
    for (const headers of [{}, v1.headers]) {
      const read = await t.call({ method: 'GET', url: '/v1/competitions/c', headers });
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('validators');
      const list = await t.call({ method: 'GET', url: '/v1/competitions', headers });
      expect(list.body.competitions[0]).not.toHaveProperty('validators');
    }
    const audit = await t.call({ method: 'GET', url: '/v1/audit?competition=c', headers: admin });
    expect(audit.body.entries.at(-1)).toMatchObject({
      action: 'competition.update',
      actor: { kind: 'admin' },
      summary: { validators: [v1.id] },
    });
  });

  it('an empty list lets no validator write; the admin still does', async () => {
    await put({ validators: [] });
    expect((await post(v1.headers, 'r1')).status).toBe(403);
    expect((await post(admin, 'r0')).status).toBe(200);
  });
});
