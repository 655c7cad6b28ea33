// Ids and display names at the door: `.` and `..` are no ids (URL-normalising clients resolve them
// away, so an item of such an id could never be read back), and a name carries no control
// character or bidirectional control. Each refusal is a 400 naming the field; nothing is stored.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

describe('ids', () => {
  it.each(['.', '..'])('a run id %j is a 400 naming body/runs/0/runId, and stores nothing', async (runId) => {
    await seedCompetition(t, 'c');
    const tasks = [{ id: 'a', type: 'swebench_verified' }];
    expect(
      (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
    ).toBe(200);
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: [{ runId, taskId: 'a', kind: 'baseline', resolved: true }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({
      path: 'body/runs/0/runId',
      message: expect.stringMatching(/'\.' or '\.\.'/),
    });
    expect(await t.count('runs')).toBe(0);
  });

  it.each(['.', '..'])('a task id %j is a 400 naming body/tasks/0/id', async (id) => {
    await seedCompetition(t, 'c');
    const res = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/tasks',
      headers: admin,
      payload: { tasks: [{ id, type: 'swebench_verified' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({
      path: 'body/tasks/0/id',
      message: expect.stringMatching(/'\.' or '\.\.'/),
    });
    expect(await t.count('tasks')).toBe(0);
  });

  it('ids with dots that are not a path segment of their own stay ids', async () => {
    await seedCompetition(t, 'c');
    const tasks = [
      { id: '...', type: 'swebench_verified' },
      { id: '.a', type: 'swebench_verified' },
    ];
    expect(
      (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
    ).toBe(200);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/...' })).status).toBe(200);
  });
});

describe('display names', () => {
  const hostile = [
    ['a right-to-left override', 'Good\u202Eevil'],
    ['a left-to-right embedding', '\u202Aname'],
    ['a first-strong isolate', 'x\u2068y\u2069'],
    ['a line feed', 'one\ntwo'],
    ['an escape (C0)', 'red\u001B[31m'],
    ['a delete', 'a\u007Fb'],
    ['a C1 control', 'a\u0085b'],
  ];

  it.each(hostile)('a competition name with %s is a 400 naming body/name', async (_, name) => {
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body/name', message: expect.stringMatching(/control characters/) }]);
    expect(await t.count('competitions')).toBe(0);
  });

  it.each(hostile)('a validator name with %s is a 400 naming body/name', async (_, name) => {
    const res = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body/name', message: expect.stringMatching(/bidirectional/) }]);
    expect(await t.count('validators')).toBe(0);
  });

  it('names in any script, with marks and emoji, are taken as they are', async () => {
    const name = 'Ёлка — مسابقة 競技 ✓ 🚀 e\u0301';
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
  });
});
