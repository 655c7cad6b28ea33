// Full disks under a real server process: file systems of a few MiB (tmpfs, mounted here: root
// only) holding the database or the server's temporary folder (TMPDIR, where import uploads and
// backup copies are spooled). Every refusal is a 503 problem+json with Retry-After 60 that
// stores nothing, never a 500; once there is room again the same requests succeed, without a
// restart; and every acknowledged run is there after one.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';
import { fill, tmpfsMounts } from '../support/tmpfs.js';

const JSONL = readFileSync(fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url)));
const ADMIN = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` };
const tmp = tempDir('full-disk');
const tmpfs = tmpfsMounts(tmp.dir);
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  tmpfs.unmountAll();
  tmp.remove();
});

async function call(method: string, path: string, body?: unknown, type = 'application/json') {
  const res = await fetch(`${server!.baseUrl}${path}`, {
    method,
    headers: body === undefined ? ADMIN : { ...ADMIN, 'content-type': type },
    body: body === undefined ? undefined : body instanceof Buffer ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  return { status: res.status, headers: res.headers, bytes, text };
}

/** The answer is a 503 storage-full problem with Retry-After 60 and no internals. */
function fullDisk(res: Awaited<ReturnType<typeof call>>, what: RegExp) {
  expect(res.status, res.text).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('retry-after')).toBe('60');
  const body = JSON.parse(res.text) as { type: string; detail: string };
  expect(body.type).toBe('urn:swe-scoring:problem:storage-full');
  expect(body.detail).toMatch(what);
  expect(res.text).not.toMatch(/ENOSPC|SQLITE|stack|\/tmp/);
}

const counts = async () =>
  (JSON.parse((await call('GET', '/v1/competitions/c')).text) as { counts: { tasks: number; runs: number } }).counts;
const tasks = async () => (await counts()).tasks;
/** Lines of the server's log saying a request met the database's disk full. */
const diskFullLogged = () => server!.output().match(/"msg":"database disk full"/g)?.length ?? 0;

/** Batch `n`: 200 runs of 20 tasks and 13 miners, with ids long enough to fill pages fast. */
const batch = (n: number, size = 200) => ({
  runs: Array.from({ length: size }, (_, i) => ({
    runId: `b${n}-r${i}-${'x'.repeat(60)}`,
    taskId: `t${i % 20}`,
    kind: 'miner',
    minerHotkey: `m${i % 13}`,
    resolved: i % 2 === 0,
    tokens: { input: 100 + i, output: 10 },
  })),
});

// The database's disk and the backup copies are SQLite's; mounting needs root (CI runs as root).
describe.runIf(TEST_ENGINE === 'sqlite' && process.getuid?.() === 0)(
  'full disks (tmpfs, as root)',
  { timeout: 120_000 },
  () => {
    it("the database's disk full: every write, an import's too, is 503 storage-full and logged; room again, stored, and kept across a restart", async () => {
      const data = tmpfs.mount('data', '4m');
      const dbPath = join(data, 'scoring.db');
      server = await startServer({ dbPath });
      expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
      const taskList = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' }));
      expect((await call('PUT', '/v1/competitions/c/tasks', { tasks: taskList })).status).toBe(200);
      const validator = JSON.parse((await call('POST', '/v1/validators', { name: 'v' })).text) as {
        id: string;
        apiKey: string;
      };
      const post = (n: number) =>
        fetch(`${server!.baseUrl}/v1/competitions/c/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${validator.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(batch(n)),
        }).then(async (res) => ({
          status: res.status,
          headers: res.headers,
          text: await res.text(),
          bytes: Buffer.of(),
        }));

      // Ingest until the disk (WAL and file together) is full.
      let acked = 0;
      let refused = -1;
      for (let n = 0; n < 200 && refused < 0; n++) {
        const res = await post(n);
        if (res.status === 200) acked += 200;
        else {
          fullDisk(res, /disk is full.*changed nothing/);
          refused = n;
        }
      }
      expect(refused).toBeGreaterThan(0);
      const before = await counts();
      expect(before.runs).toBe(acked);

      // A write on a connection of its own (the import's worker) says the same, with the

      // same Retry-After, and is logged like the others. (The refused batch's rollback gave back some

      // room: the disk is filled to its last byte first.)

      fill(data);
      const logged = diskFullLogged();
      fullDisk(await call('POST', '/v1/competitions/c/tasks/import', JSONL, 'application/x-ndjson'), /disk is full/);
      // (The server's log reaches this process through a pipe, shortly after the answer.)
      await expect.poll(diskFullLogged).toBe(logged + 1);
      expect(await counts()).toEqual(before);
      expect((await call('GET', '/v1/competitions/c/leaderboard')).status).toBe(200);

      // Room again: the same requests are stored, without a restart.
      rmSync(join(data, 'filler'));
      tmpfs.resize(data, '64m');
      expect((await post(refused)).status).toBe(200);
      acked += 200;
      expect((await call('POST', '/v1/competitions/c/tasks/import', JSONL, 'application/x-ndjson')).status).toBe(200);
      expect(await counts()).toEqual({ ...before, tasks: 20 + 124, runs: acked });

      // Full again (the log's own room used up too), then stopped: the scores the stop saves may not
      // fit, and nothing acknowledged is lost.
      fill(data);
      let full = false;
      for (let n = refused + 1; n < refused + 100 && !full; n++) {
        const res = await post(n);
        if (res.status === 200) acked += 200;
        else full = res.status === 503;
      }
      expect(full).toBe(true);
      expect((await call('GET', '/v1/competitions/c/leaderboard')).status).toBe(200);
      expect(await server.stop()).toEqual({ code: 0, signal: null });
      rmSync(join(data, 'filler'));
      server = await startServer({ dbPath });
      expect(await counts()).toEqual({ ...before, tasks: 20 + 124, runs: acked });
      await server.stop();
    });

    it('a reader holding the log open: writes stop before the log fills the disk; the reader gone, the server takes writes again by itself', async () => {
      // Another process's read transaction (a sqlite3 shell left open, a backup tool) keeps SQLite
      // from checkpointing the log past it: the -wal grew until it filled the disk, and then, the
      // reader gone, the checkpoint had no room to copy it into the file: every write stayed refused,
      // across restarts, until the operator added disk.
      const data = tmpfs.mount('wal', '64m');
      const dbPath = join(data, 'scoring.db');
      server = await startServer({ dbPath });
      expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
      const taskList = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' }));
      expect((await call('PUT', '/v1/competitions/c/tasks', { tasks: taskList })).status).toBe(200);
      const key = (JSON.parse((await call('POST', '/v1/validators', { name: 'v' })).text) as { apiKey: string }).apiKey;
      const post = (n: number) =>
        fetch(`${server!.baseUrl}/v1/competitions/c/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(batch(n, 500)),
        }).then(async (res) => ({
          status: res.status,
          headers: res.headers,
          text: await res.text(),
          bytes: Buffer.of(),
        }));
      expect((await post(0)).status).toBe(200);

      const reader = spawn(
        process.execPath,
        [
          '-e',
          `const db = new (require('better-sqlite3'))(${JSON.stringify(dbPath)});
         db.exec('BEGIN'); db.prepare('SELECT count(*) FROM runs').get(); console.log('holding');
         setInterval(() => {}, 1000);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        await new Promise((resolve) => reader.stdout.once('data', resolve));
        let acked = 500;
        let refused = -1;
        for (let n = 1; n < 2000 && refused < 0; n++) {
          const res = await post(n);
          if (res.status === 200) acked += 500;
          else {
            fullDisk(res, /disk is full.*changed nothing/);
            refused = n;
          }
        }
        expect(refused).toBeGreaterThan(0);
        const metrics = (await call('GET', '/metrics')).text;
        expect(Number(/^scoring_sqlite_wal_bytes (\d+)$/m.exec(metrics)?.[1])).toBe(statSync(`${dbPath}-wal`).size);
        // The disk did not fill: room is left to copy the log into the file once the reader lets go.
        const { bavail, bsize } = statfsSync(data);
        expect(bavail * bsize).toBeGreaterThan(16 * 1024 * 1024);

        reader.kill('SIGKILL');
        await new Promise((resolve) => reader.once('exit', resolve));
        expect((await post(refused)).status).toBe(200);
        acked += 500;
        expect((await post(refused + 1)).status).toBe(200);
        acked += 500;
        expect((await counts()).runs).toBe(acked);
        // The log is back to its bound: its room is the disk's again.
        expect(statSync(`${dbPath}-wal`).size).toBeLessThanOrEqual(16 * 1024 * 1024);
        await server.stop();
      } finally {
        reader.kill('SIGKILL');
      }
    });

    it("the server's temporary folder full: a backup, an upload and an import chunk are 503 storage-full; room again, they succeed", async () => {
      const spool = tmpfs.mount('spool', '8m');
      server = await startServer({ dbPath: join(tmp.dir, 'spool-test.db'), env: { TMPDIR: spool } });
      expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
      fill(spool);

      // The copy GET /v1/admin/backup sends is made in the temporary folder first.
      fullDisk(await call('GET', '/v1/admin/backup'), /temporary folder is full.*changed nothing/);
      // An upload is written there as it arrives, before it is parsed.
      const ndjson = 'application/x-ndjson';
      fullDisk(await call('POST', '/v1/competitions/c/tasks/import', JSONL, ndjson), /temporary folder is full/);
      // An import session's chunks likewise; the refused chunk is not counted.
      const opened = await call('POST', '/v1/competitions/c/tasks/imports', { format: 'jsonl' });
      if (opened.status !== 201) fullDisk(opened, /temporary folder is full/);
      else {
        const id = (JSON.parse(opened.text) as { sessionId: string }).sessionId;
        const chunk = `/v1/competitions/c/tasks/imports/${id}/chunks/0`;
        fullDisk(await call('PUT', chunk, JSONL, 'application/octet-stream'), /temporary folder is full/);
        const session = JSON.parse((await call('GET', `/v1/competitions/c/tasks/imports/${id}`)).text) as {
          receivedChunks: number;
        };
        expect(session.receivedChunks).toBe(0);
        expect((await call('DELETE', `/v1/competitions/c/tasks/imports/${id}`)).status).toBe(200);
      }
      expect(await tasks()).toBe(0);
      expect((await call('GET', '/readyz')).status).toBe(200);

      rmSync(join(spool, 'filler'));
      const backup = await call('GET', '/v1/admin/backup');
      expect(backup.status).toBe(200);
      expect(backup.bytes.subarray(0, 15).toString()).toBe('SQLite format 3');
      expect((await call('POST', '/v1/competitions/c/tasks/import', JSONL, ndjson)).status).toBe(200);
      expect(await tasks()).toBe(124);
      await server.stop();
    });
  },
);
