// Full disks under a real server process: file systems of a few MiB (tmpfs, mounted here: root
// only) holding the database or the server's temporary folder (TMPDIR, where import uploads and
// backup copies are spooled). Every refusal is a 503 problem+json with Retry-After 60 that
// stores nothing, never a 500; once there is room again the same requests succeed, without a
// restart; and every acknowledged run is there after one.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const JSONL = readFileSync(fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url)));
const ADMIN = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` };
const tmp = tempDir('full-disk');
const mounts: string[] = [];
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  for (const dir of mounts) execFileSync('umount', ['-l', dir]);
  tmp.remove();
});

/** A tmpfs of `size` (e.g. `4m`) at a new folder under the test's. */
function mountTmpfs(name: string, size: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

/** Fills the file system of `dir` to its last byte with a file `filler`. */
function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

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

const tasks = async () =>
  (JSON.parse((await call('GET', '/v1/competitions/c')).text) as { counts: { tasks: number } }).counts.tasks;

// The database's disk and the backup copies are SQLite's; mounting needs root (CI runs as root).
describe.runIf(TEST_ENGINE === 'sqlite' && process.getuid?.() === 0)(
  'full disks (tmpfs, as root)',
  { timeout: 120_000 },
  () => {
    it("the server's temporary folder full: a backup, an upload and an import chunk are 503 storage-full; room again, they succeed", async () => {
      const spool = mountTmpfs('spool', '8m');
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
