// SQLite's storage failures reach the client as 503 problem+json with Retry-After, never a 500
// (src/db/sqlite/errors.ts): a full disk (max_page_count held at the file's size), a file that
// cannot be written (query_only) and a write lock another connection holds past busy_timeout.
// Each through the real app on a real database file; the write stores nothing, and once the
// storage takes writes again the same request is stored.
import Database from 'better-sqlite3';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, swebenchRun, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

describe.runIf(TEST_ENGINE === 'sqlite')('storage failures of SQLite', () => {
  let dir: TempDir;
  let t: TestApp;
  let file: string;
  let validator: Record<string, string>;
  beforeEach(async () => {
    dir = tempDir('storage-errors');
    file = join(dir.dir, 'db.sqlite');
    t = await testApp({ path: file });
    const { validatorKey } = await seedCompetition(t, 'c');
    validator = { authorization: `Bearer ${validatorKey}` };
    const tasks = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/tasks',
      headers: admin,
      payload: { tasks: [{ id: 'a', type: 'swebench_verified' }] },
    });
    expect(tasks.status).toBe(200);
    await post(['r0']);
  });
  afterEach(async () => {
    await t.close();
    dir.remove();
  });

  const post = async (ids: string[]) =>
    t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: validator,
      payload: { runs: ids.map((id, i) => swebenchRun(id, i % 3 === 0 ? null : `miner-${i % 7}`, i % 2 === 0)) },
    });
  const batch = Array.from({ length: 400 }, (_, i) => `run-${i}-${'x'.repeat(100)}`);

  /** The request is refused as `type`, with Retry-After, and nothing it sent is stored. */
  async function refused(type: string, retryAfter: string, detail: RegExp) {
    const stored = await t.dump();
    const board = (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body;
    const res = await post(batch);
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.body).toEqual({
      type: `urn:swe-scoring:problem:${type}`,
      title: 'Service unavailable',
      status: 503,
      detail: expect.stringMatching(detail),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|SQLITE|stack/);
    expect(await t.dump()).toBe(stored);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body).toEqual(board);
  }

  /** The same request, sent again once the storage takes writes: every run stored. */
  async function retried() {
    const res = await post(batch);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await t.count('runs')).toBe(batch.length + 1);
  }

  it('a full disk is a 503 storage-full, Retry-After 60, and a retry stores the runs once there is room', async () => {
    const pages = t.db.$client.pragma('page_count', { simple: true }) as number;
    // The file may not grow past its size: the batch's pages do not fit (SQLITE_FULL).
    t.db.$client.pragma(`max_page_count = ${pages}`);
    await refused('storage-full', '60', /disk is full.*changed nothing/);
    t.db.$client.pragma('max_page_count = 1073741823');
    await retried();
  });

  it('a file that cannot be written is a 503 storage-read-only; reads still answer', async () => {
    t.db.$client.pragma('query_only = 1');
    await refused('storage-read-only', '60', /cannot be written.*changed nothing/);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs' })).status).toBe(200);
    t.db.$client.pragma('query_only = 0');
    await retried();
  });

  it('a file deleted or moved away while the server runs: writes a 503 storage-moved, not ready; back, stored', async () => {
    // The open connection still wrote into the unlinked file, and acknowledged it: the next start
    // found no file and made a new, empty one. A tester lost every run so.
    renameSync(file, `${file}.away`);
    await refused('storage-moved', '60', /deleted, moved or replaced.*changed nothing/);
    expect((await t.call({ method: 'GET', url: '/readyz' })).status).toBe(503);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs' })).status).toBe(200);
    renameSync(`${file}.away`, file);
    expect((await t.call({ method: 'GET', url: '/readyz' })).status).toBe(200);
    await retried();
  });

  for (const [suffix, what] of [
    ['-wal', 'write-ahead log'],
    ['-shm', 'shared memory'],
  ] as const)
    it(`its ${what} (${suffix}) deleted while the server runs: writes a 503 storage-moved, not ready; a graceful close keeps every acknowledged run`, async () => {
      // The connection went on writing into the deleted -wal and acknowledged it; an import's worker,
      // opening the path, made a new -wal beside it; then even a graceful stop lost every run not yet
      // checkpointed (a tester found the competition gone after a restart).
      rmSync(file + suffix);
      await refused('storage-moved', '60', /deleted, moved or replaced.*changed nothing/);
      const jsonl = readFileSync(fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url)));
      const imported = await t.call({
        method: 'POST',
        url: '/v1/competitions/c/tasks/import',
        headers: { ...admin, 'content-type': 'application/x-ndjson' },
        payload: jsonl,
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(503);
      expect(imported.headers['retry-after']).toBe('60');
      expect((imported.body as { type: string }).type).toBe('urn:swe-scoring:problem:storage-moved');
      expect((await t.call({ method: 'GET', url: '/readyz' })).status).toBe(503);
      expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs' })).status).toBe(200);
      // Closing, the connection writes what its log holds into the file (still the one at the path).
      await t.close();
      t = await testApp({ path: file });
      expect(await t.count('runs')).toBe(1);
      expect(await t.count('tasks')).toBe(1);
      await retried();
    });

  it('a write lock held by another connection past busy_timeout is a 503 unavailable, Retry-After 5', async () => {
    t.db.$client.pragma('busy_timeout = 50');
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      await refused('unavailable', '5', /retry/);
      other.exec('COMMIT');
    } finally {
      other.close();
    }
    await retried();
  });
});
