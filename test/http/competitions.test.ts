import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

describe('competitions', () => {
  it('creates with defaults (201), then updates only what is sent (200)', async () => {
    const created = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c1',
      headers: admin,
      payload: { name: 'One' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'c1',
      name: 'One',
      tokenWeights: { input: 1, cachedInput: 0.1, output: 3 },
      burnRatio: 0,
      judgeVotes: 5,
      finalStages: ['screener_2', 'evaluation'],
      counts: { tasks: 0, miners: 0, runs: 0 },
    });
    const updated = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c1',
      headers: admin,
      payload: { name: 'Uno', burnRatio: 0.25 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Uno', burnRatio: 0.25, judgeVotes: 5, tokenWeights: { output: 3 } });
    const list = await t.call({ method: 'GET', url: '/v1/competitions' });
    expect(list.body.competitions.map((c: { id: string }) => c.id)).toEqual(['c1']);
  });

  it.each([
    [{ name: 'x', judgeVotes: 4 }, 'body/judgeVotes'],
    [{ name: 'x', judgeVotes: 17 }, 'body/judgeVotes'],
    [{ name: 'x', burnRatio: 1.5 }, 'body/burnRatio'],
    [{ name: 'x', tokenWeights: { input: -1, cachedInput: 0, output: 1 } }, 'body/tokenWeights/input'],
    [{ name: 'x', finalStages: ['final'] }, 'body/finalStages/0'],
    [{ name: 'x', finalStages: ['evaluation', 'evaluation'] }, 'body/finalStages'],
    [{ name: 'x', extra: 1 }, 'body/extra'],
    [{}, 'body/name'],
  ])('rejects %j with a 400 naming %s, storing nothing', async (payload, path) => {
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/c2', headers: admin, payload });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c2' })).status).toBe(404);
  });

  it('rejects an identifier with characters outside [A-Za-z0-9._:-]', async () => {
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/a%20b', headers: admin, payload: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('params/competitionId');
  });

  it('changing token weights recomputes the weighted tokens behind every score', async () => {
    await t.call({ method: 'PUT', url: '/v1/competitions/c1', headers: admin, payload: { name: 'One' } });
    await t.call({
      method: 'PUT',
      url: '/v1/competitions/c1/tasks',
      headers: admin,
      payload: { tasks: [{ id: 't', type: 'swebench_verified' }] },
    });
    const runs = [
      {
        runId: 'b1',
        taskId: 't',
        kind: 'baseline',
        resolved: true,
        tokens: { input: 100, cachedInput: 1000, output: 0 },
      },
      {
        runId: 'm1',
        taskId: 't',
        kind: 'miner',
        minerHotkey: 'hk',
        resolved: true,
        tokens: { input: 0, cachedInput: 0, output: 100 },
      },
    ];
    expect(
      (await t.call({ method: 'POST', url: '/v1/competitions/c1/runs', headers: admin, payload: { runs } })).status,
    ).toBe(200);
    const before = await t.call({ method: 'GET', url: '/v1/competitions/c1/tasks/t' });
    // T_B = 100 + 0.1 * 1000 = 200; T_A = 3 * 100 = 300.
    expect(before.body.baseline.baselineTokens).toBe(200);
    expect(before.body.miners[0].minerTokens).toBe(300);
    await t.call({
      method: 'PUT',
      url: '/v1/competitions/c1',
      headers: admin,
      payload: { name: 'One', tokenWeights: { input: 2, cachedInput: 0, output: 0 } },
    });
    const after = await t.call({ method: 'GET', url: '/v1/competitions/c1/tasks/t' });
    // T_B = 2 * 100 = 200; the miner's run now weighs 0, which is not a valid count (SPEC 2).
    expect(after.body.baseline.baselineTokens).toBe(200);
    expect(after.body.miners[0].minerTokens).toBeNull();
    expect(after.body.miners[0].r).toBe(0);
  });
});
