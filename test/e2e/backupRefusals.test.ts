// `swe-scoring backup --out` aimed at a file of the live database, whatever path names it, is
// refused in one line and touches nothing, --force or not: after the refusals a crash of the server
// (SIGKILL) still loses no acknowledged run. A backup elsewhere replaces its target whole.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/cli.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const RUNS = 12;
const tmp = tempDir('backup-refusals');
const data = join(tmp.dir, 'data');
const db = join(data, 'live.db');
/** Another name of the data folder: a symbolic link to it. */
const link = join(tmp.dir, 'link');
let server: ServerProcess;

/** Which file (inode) each of the live database's names holds. */
const inodes = () =>
  ['', '-wal', '-shm'].map((suffix) => {
    const s = statSync(db + suffix, { throwIfNoEntry: false });
    return s ? `${suffix}:${s.dev}:${s.ino}` : `${suffix}: none`;
  });

const runsIn = (path: string) => {
  const sqlite = new Database(path);
  try {
    return sqlite.prepare('SELECT count(*) FROM runs').pluck().get();
  } finally {
    sqlite.close();
  }
};

// The online backup is SQLite's; on PostgreSQL the command points to pg_dump (test/cli/commands.test.ts).
describe.skipIf(TEST_ENGINE === 'postgres')('backup --out aimed at the live database', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    mkdirSync(data);
    symlinkSync(data, link);
    server = await startServer({ dbPath: db });
    // The runs stay in the write-ahead log (fewer pages than a checkpoint waits for).
    await seedRuns(server, 'c', RUNS);
  }, 60_000);
  afterAll(async () => {
    await stopAllServers();
    tmp.remove();
  });

  it.each([
    [
      'its write-ahead log',
      `${db}-wal`,
      /refused: --out .*live\.db-wal is the live database's write-ahead log \(-wal\)/,
    ],
    ['its shared memory', `${db}-shm`, /refused: --out .*live\.db-shm is the live database's shared memory \(-shm\)/],
    ['the live file itself', db, /refused: --out .*live\.db is the live database itself/],
    ['the live file through a linked folder', join(link, 'live.db'), /is the live database itself/],
    ['its write-ahead log through a linked folder', join(link, 'live.db-wal'), /is the live database's write-ahead/],
  ])('refuses %s, even with --force, and leaves every file as it was', async (_what, out, message) => {
    const before = inodes();
    expect(before.join()).not.toContain('none'); // the server holds its -wal and -shm open
    const res = await cli('backup', ['--out', out, '--force'], { DATABASE_PATH: db });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(inodes()).toEqual(before);
    expect(readdirSync(data).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['signing-key.pem', "the server's snapshot-signing key"],
    ['server-key', "the server's own key (signed requests)"],
    ['admin-token', "the server's admin token file"],
  ])(
    'refuses the secret %s beside the database, even with --force: a restore cannot rebuild it',
    async (name, what) => {
      const out = join(data, name);
      const before = existsSync(out) ? readFileSync(out) : null;
      const res = await cli('backup', ['--out', out, '--force'], { DATABASE_PATH: db });
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`is ${what}`);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out) ? readFileSync(out) : null).toEqual(before);
    },
  );

  it('after the refusals, a crash of the server loses no acknowledged run', async () => {
    await server.stop('SIGKILL');
    expect(runsIn(db)).toBe(RUNS);
  });

  it('refuses the -wal of a database at rest, which does not exist yet', async () => {
    expect(statSync(`${db}-wal`, { throwIfNoEntry: false })).toBeUndefined(); // checkpointed on opening above
    const res = await cli('backup', ['--out', `${db}-wal`], { DATABASE_PATH: db });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is the live database's write-ahead log/);
    expect(statSync(`${db}-wal`, { throwIfNoEntry: false })).toBeUndefined();
    expect(runsIn(db)).toBe(RUNS);
  });

  it('elsewhere, --force replaces the target whole, mode 0600, and leaves no temporary file', async () => {
    const out = join(tmp.dir, 'copy.db');
    writeFileSync(out, 'an older backup', { mode: 0o644 });
    const res = await cli('backup', ['--out', out, '--force'], { DATABASE_PATH: db });
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(tmp.dir).sort()).toEqual(['copy.db', 'data', 'link']);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(runsIn(out)).toBe(RUNS);
  });
});
