// A backup taken through GET /v1/admin/backup while validators post runs to a real server process:
// it holds every batch acknowledged before the backup began, each batch whole or not at all, and a
// fresh app fed exactly the batches it holds scores the same. The command line's backup of the
// live file, after the writes, reads as the live server does.
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, TEST_ENGINE } from '../support/app.js';
import { cli } from '../cli/cli.js';
import { SERVER_ADMIN_TOKEN as E2E_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const C = 'bk';
const TASKS = Array.from({ length: 9 }, (_, i) => ({
  id: `t${i}`,
  type: 'swebench_verified',
  complexity: ['short', 'medium', 'long'][i % 3],
}));
const MINERS = ['m-a', 'm-b', 'm-c'];
const batch = (b: number) =>
  Array.from({ length: 200 }, (_, i) => {
    const task = TASKS[(b * 7 + i) % TASKS.length]!.id;
    const who = (b + i) % 4;
    const tokens = { input: 100 + ((b * 31 + i * 17) % 900), output: 5 + ((b + i) % 50) };
    const resolved = (b * 13 + i * 5) % 10 < 6;
    return who === 3
      ? { runId: `b${b}-${i}`, taskId: task, kind: 'baseline', resolved, tokens }
      : { runId: `b${b}-${i}`, taskId: task, kind: 'miner', minerHotkey: MINERS[who], resolved, tokens };
  });
const BATCHES = Array.from({ length: 48 }, (_, b) => batch(b));

let server: ServerProcess | undefined;
const tmp = tempDir('e2e');
afterAll(async () => {
  await server?.stop('SIGKILL');
  tmp.remove();
});

// SQLite's online backup; on PostgreSQL the route is a 409 pointing to pg_dump (test/http/backup.test.ts).
describe.skipIf(TEST_ENGINE === 'postgres')('online backup during concurrent writes', { timeout: 180_000 }, () => {
  it('holds a consistent prefix: every batch acknowledged before it, each batch whole', async () => {
    const dbPath = `${tmp.dir}/live.db`;
    server = await startServer({ dbPath: dbPath });
    const call = (method: string, path: string, body?: unknown, token = E2E_ADMIN_TOKEN) =>
      fetch(`${server!.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await call('PUT', `/v1/competitions/${C}`, { name: 'Backup' })).status).toBe(201);
    expect((await call('PUT', `/v1/competitions/${C}/tasks`, { tasks: TASKS })).status).toBe(200);
    const key = (await (await call('POST', '/v1/validators', { name: 'v' })).json()).apiKey as string;

    // Four writers post the batches; the backup starts once 12 are acknowledged.
    const ackedAt: number[] = [];
    let next = 0;
    let backupStarted = Infinity;
    let backup: Promise<Buffer> | null = null;
    const writer = async () => {
      while (next < BATCHES.length) {
        const b = next++;
        const res = await call('POST', `/v1/competitions/${C}/runs`, { runs: BATCHES[b] }, key);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        ackedAt[b] = performance.now();
        if (ackedAt.filter(Boolean).length === 12 && backup === null) {
          backupStarted = performance.now();
          backup = call('GET', '/v1/admin/backup').then(async (r) => {
            expect(r.status).toBe(200);
            return Buffer.from(await r.arrayBuffer());
          });
        }
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    const file = `${tmp.dir}/restored.db`;
    writeFileSync(file, await backup!);

    // Which batches the backup holds: each all or nothing, and every one acknowledged before it began.
    const sqlite = new Database(file, { readonly: true });
    const stored = new Set(sqlite.prepare('SELECT run_id FROM runs').pluck().all() as string[]);
    sqlite.close();
    const held: number[] = [];
    BATCHES.forEach((runs, b) => {
      const n = runs.filter((r) => stored.has(r.runId)).length;
      expect([0, runs.length], `batch ${b}`).toContain(n);
      if (n > 0) held.push(b);
      if (ackedAt[b]! < backupStarted) expect(n, `batch ${b} was acknowledged before the backup`).toBe(runs.length);
    });
    expect(held.length).toBeGreaterThanOrEqual(12);
    expect(held.length).toBeLessThan(BATCHES.length); // taken mid-way, not after the writes

    // The restored file scores exactly as a fresh database holding the same batches.
    const restored = await testApp({ path: file });
    const fresh = await testApp();
    try {
      const { validatorKey } = await seedCompetition(fresh, C, { name: 'Backup' });
      await fresh.call({
        method: 'PUT',
        url: `/v1/competitions/${C}/tasks`,
        headers: admin,
        payload: { tasks: TASKS },
      });
      for (const b of held) {
        const r = await fresh.call({
          method: 'POST',
          url: `/v1/competitions/${C}/runs`,
          headers: { authorization: `Bearer ${validatorKey}` },
          payload: { runs: BATCHES[b] },
        });
        expect(r.status).toBe(200);
      }
      for (const route of ['leaderboard', 'weights', 'tasks/t0', 'miners/m-b']) {
        const url = `/v1/competitions/${C}/${route}`;
        expect((await restored.call({ url })).body, route).toEqual((await fresh.call({ url })).body);
      }
      expect((await restored.call({ url: `/v1/competitions/${C}` })).body.counts.runs).toBe(held.length * 200);
    } finally {
      await restored.close();
      await fresh.close();
    }

    // The command line's backup of the live file (server still running) reads as the server does.
    const out = `${tmp.dir}/cli-backup.db`;
    const res = await cli('backup', ['--out', out], { DATABASE_PATH: dbPath });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ out, bytes: expect.any(Number) });
    const copy = await testApp({ path: out });
    try {
      for (const route of ['leaderboard', 'weights']) {
        const live = await (await fetch(`${server.baseUrl}/v1/competitions/${C}/${route}`)).json();
        expect((await copy.call({ url: `/v1/competitions/${C}/${route}` })).body).toEqual(live);
      }
    } finally {
      await copy.close();
    }
    expect((await cli('backup', ['--out', out], { DATABASE_PATH: dbPath })).stderr).toContain('exists; pass --force');
  });
});
