// GET /v1/admin/backup: a SQLite file that opens as the same data, admin only, temp file removed.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-backup-test-'));
let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t, 'c');
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'T1', type: 'swebench_verified', complexity: 'short' }] },
  });
  const runs = [
    { runId: 'b1', taskId: 'T1', kind: 'baseline', resolved: true, tokens: { input: 900, output: 90 } },
    { runId: 'b2', taskId: 'T1', kind: 'baseline', resolved: true, tokens: { input: 800, output: 80 } },
    {
      runId: 'm1',
      taskId: 'T1',
      kind: 'miner',
      minerHotkey: 'alice',
      resolved: true,
      tokens: { input: 300, output: 30 },
    },
  ];
  expect(
    (
      await t.call({
        method: 'POST',
        url: '/v1/competitions/c/runs',
        headers: { authorization: `Bearer ${validatorKey}` },
        payload: { runs },
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The service's temporary copies go to os.tmpdir(): point it at a folder of this test's own. */
const scratch = join(dir, 'tmp');
const backupsInTmp = () => readdirSync(scratch);

it('needs the admin token', async () => {
  expect((await t.call({ method: 'GET', url: '/v1/admin/backup' })).status).toBe(401);
});

it.runIf(TEST_ENGINE === 'postgres')('on PostgreSQL is a 409 that points to pg_dump', async () => {
  const res = await t.call({ method: 'GET', url: '/v1/admin/backup', headers: admin });
  expect(res.status).toBe(409);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.body.detail).toContain('pg_dump');
});

it.runIf(TEST_ENGINE === 'sqlite')(
  'streams a SQLite file that a fresh app opens with the same scores, and removes its temporary copy',
  async () => {
    mkdirSync(scratch);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    const res = await t.app
      .inject({ method: 'GET', url: '/v1/admin/backup', headers: admin })
      .finally(() => (saved === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = saved)));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.sqlite3');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="swe-scoring-.*\.db"$/);
    expect(res.rawPayload.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const file = join(dir, 'restored.db');
    writeFileSync(file, res.rawPayload);
    const restored = await testApp({ path: file });
    try {
      for (const route of ['leaderboard', 'weights', 'tasks/T1', 'miners/alice']) {
        const url = `/v1/competitions/c/${route}`;
        expect((await restored.call({ url })).body, route).toEqual((await t.call({ url })).body);
      }
    } finally {
      await restored.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(backupsInTmp()).toEqual([]);
    expect(existsSync(file)).toBe(true);
  },
);
