// One writer per SQLite file: while a server runs on a file, a second server and an import
// straight into it are refused in one line naming the server's pid, and nothing changes; the
// server's own import (its worker thread's connection) still commits; once the server is killed
// (SIGKILL: no clean-up of its own), the kernel has released the lock and a new server starts.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../cli/cli.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const QNA = fileURLToPath(new URL('../../fixtures/swe-atlas-qna/test-00000-of-00001.parquet', import.meta.url));
const tmp = tempDir('writer-lock');
const db = join(tmp.dir, 'live.db');
let server: ServerProcess;

/**
 * Runs `swe-scoring <command>` for at most `ms`: its exit code, or null when it was still running
 * (a second server that started), then stopped.
 */
function runFor(command: string, args: string[], env: Record<string, string>, ms: number) {
  const child = spawnCli(command, args, env);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal === 'SIGKILL' ? null : code, stderr });
    });
  });
}

const tasksOf = async (s: ServerProcess, competition: string) =>
  ((await (await fetch(`${s.baseUrl}/v1/competitions/${competition}`)).json()) as { counts: { tasks: number } }).counts
    .tasks;

describe.skipIf(TEST_ENGINE === 'postgres')('one writer per SQLite file', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    server = await startServer({ dbPath: db });
    await seedRuns(server, 'c', 3);
  }, 60_000);
  afterAll(async () => {
    await stopAllServers();
    tmp.remove();
  });

  it('a second server on the file is refused, naming the pid of the one that holds it', async () => {
    const second = await runFor(
      'serve',
      [],
      { DATABASE_PATH: db, PORT: '0', SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN, LOG_LEVEL: 'warn' },
      20_000,
    );
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`is in use by process ${server.pid} \\(swe-scoring serve, since [^)]+\\): one process writes`),
    );
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(readFileSync(`${db}.lock.pid`, 'utf8'))).toMatchObject({ pid: server.pid });
  });

  it('a second server on a hard link to the file, in another folder, is refused: two names would take two locks', async () => {
    // Each name has its lock and its -wal beside it: both servers acknowledged writes, and those of
    // one were lost from the file (and the file left malformed).
    const other = join(tmp.dir, 'elsewhere');
    mkdirSync(other);
    const link = join(other, 'linked.db');
    linkSync(db, link);
    try {
      const second = await runFor(
        'serve',
        [],
        { DATABASE_PATH: link, PORT: '0', SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN, LOG_LEVEL: 'warn' },
        20_000,
      );
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain('has 2 names (hard links)');
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(`${link}-wal`)).toBe(false);
    } finally {
      rmSync(link);
    }
  });

  it('an import straight into the file is refused, says to go through the server, and stores nothing', async () => {
    const tasks = await tasksOf(server, 'c');
    const res = await runFor('import', ['--competition', 'c', '--file', QNA], { DATABASE_PATH: db }, 60_000);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`is in use by process ${server.pid} \\(swe-scoring serve`));
    expect(res.stderr).toContain('--url');
    expect(await tasksOf(server, 'c')).toBe(tasks);
  });

  it("the server's own import, committed by its worker thread, still stores", async () => {
    const tokenFile = join(tmp.dir, 'token');
    writeFileSync(tokenFile, SERVER_ADMIN_TOKEN, { mode: 0o600 });
    const child = spawnCli('import', [
      '--competition',
      'c',
      '--file',
      QNA,
      '--url',
      server.baseUrl,
      '--token-file',
      tokenFile,
    ]);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, out).toBe(0);
    expect(await tasksOf(server, 'c')).toBeGreaterThan(3);
  });

  it('after a SIGKILL of the holder the lock is free: a new server starts on the file', async () => {
    await server.stop('SIGKILL');
    const next = await startServer({ dbPath: db });
    expect(await tasksOf(next, 'c')).toBeGreaterThan(3);
    expect(JSON.parse(readFileSync(`${db}.lock.pid`, 'utf8'))).toMatchObject({ pid: next.pid });
    await next.stop();
  });
});
