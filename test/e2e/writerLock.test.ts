// One writer per SQLite file: while a server runs on a file, a second server and an import
// straight into it are refused in one line naming the server's pid, and nothing changes; the
// server's own import (its worker thread's connection) still commits; once the server is killed
// (SIGKILL: no clean-up of its own), the kernel has released the lock and a new server starts.
import Database from 'better-sqlite3';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('a symbolic link planted at the lock, the -wal or the -shm is refused in one line naming it, and the database is left as it was', async () => {
    // A lock linked to the database itself had the lock's connection open the database, set it to
    // journal_mode MEMORY (out of WAL for good) and hold it: the start failed as "database is locked".
    mkdirSync(join(tmp.dir, 'linked'));
    const file = join(tmp.dir, 'linked', 'scoring.db');
    const first = await startServer({ dbPath: file });
    await seedRuns(first, 'c', 3);
    await first.stop();
    for (const suffix of ['.lock', '-wal', '-shm']) {
      rmSync(file + suffix, { force: true });
      symlinkSync(file, file + suffix);
      const env = { DATABASE_PATH: file, PORT: '0', SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN, LOG_LEVEL: 'warn' };
      const refused = await runFor('serve', [], env, 20_000);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(`${file}${suffix} is a symbolic link (to ${file})`);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      rmSync(file + suffix);
    }
    const check = new Database(file, { readonly: true });
    try {
      expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(check.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(3);
    } finally {
      check.close();
    }
  });
});
