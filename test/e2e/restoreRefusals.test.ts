// Each refusal of `swe-scoring restore`, through the real command: one line saying what is wrong and
// what to do, exit 1 (2 for a wrong command line), and the database's files as they were, with no
// copy left beside them. A backup of an older schema is restored (the server migrates it at start).
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/cli.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';
import { fill, tmpfsMounts } from '../support/tmpfs.js';

const tmp = tempDir('restore-refusals');
const data = join(tmp.dir, 'data');
const db = join(data, 'live.db');
const link = join(tmp.dir, 'link'); // another name of the data folder
const backup = join(tmp.dir, 'backup.db');
const file = (name: string) => join(tmp.dir, name);
const tmpfs = tmpfsMounts(tmp.dir);

/** Every file in the data folder: name, inode, size, mode and a digest of its bytes. */
const state = () =>
  readdirSync(data)
    .sort()
    .map((name) => {
      const s = statSync(join(data, name));
      const digest = createHash('sha256')
        .update(readFileSync(join(data, name)))
        .digest('hex');
      return `${name} ${s.ino} ${s.size} ${(s.mode & 0o777).toString(8)} ${digest}`;
    });

/** A copy of the backup, changed by `change` through SQLite. */
function backupWith(name: string, change: (d: Database.Database) => void): string {
  copyFileSync(backup, file(name));
  const d = new Database(file(name));
  change(d);
  d.close();
  return file(name);
}

describe.skipIf(TEST_ENGINE === 'postgres')('restore refuses', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    mkdirSync(data);
    symlinkSync(data, link);
    const server = await startServer({ dbPath: db });
    await seedRuns(server, 'c', 4);
    expect((await cli('backup', ['--out', backup], { DATABASE_PATH: db })).code).toBe(0);
    await seedRuns(server, 'd', 2);
    await server.stop();
    writeFileSync(file('text.db'), 'not a database, only text\n'.repeat(200));
    const damaged = readFileSync(backup);
    damaged.fill(0x5a, 4096 + 8, 4096 * 4); // b-tree pages 2 to 4 overwritten
    writeFileSync(file('damaged.db'), damaged);
    const other = new Database(file('other.db'));
    other.exec('CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES (1)');
    other.close();
    copyFileSync(backup, file('logged.db'));
    writeFileSync(file('logged.db-wal'), Buffer.alloc(4096, 1));
    mkdirSync(file('folder.db'));
  }, 60_000);
  afterAll(async () => {
    await stopAllServers();
    tmpfs.unmountAll();
    tmp.remove();
  });

  it.each([
    [
      'a file that is not SQLite',
      () => file('text.db'),
      /--from \S*text\.db is not a SQLite database: name a file written by swe-scoring backup$/,
    ],
    [
      'a damaged backup',
      () => file('damaged.db'),
      /--from \S*damaged\.db is damaged \(PRAGMA quick_check: .*\): restore another backup$/,
    ],
    [
      'a SQLite database of something else',
      () => file('other.db'),
      /--from \S*other\.db is a SQLite database but not a swe-scoring one \(no __drizzle_migrations, competitions, runs\): name a file written by swe-scoring backup$/,
    ],
    [
      'a backup of a newer schema',
      () =>
        backupWith('newer.db', (d) =>
          d.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('future', 4102444800000),
        ),
      /--from \S*newer\.db has a newer schema than this swe-scoring \(a migration of 2100-01-01T00:00:00\.000Z; this build's newest is 0010_snapshot_parts of .*\): restore it with the version that wrote it, or a later one$/,
    ],
    [
      'a backup with a log beside it',
      () => file('logged.db'),
      /--from \S*logged\.db has a log beside it \(\S*logged\.db-wal, 4096 bytes\): .*back it up with DATABASE_PATH=\S*logged\.db swe-scoring backup --out FILE and restore FILE$/,
    ],
    [
      'the live database',
      () => db,
      /refused: --from \S*live\.db is the live database itself at \S*live\.db \(DATABASE_PATH\); name a backup$/,
    ],
    [
      'the live database through a linked folder',
      () => join(link, 'live.db'),
      /refused: --from \S*link\/live\.db is the live database itself/,
    ],
    [
      "the live database's -wal, not there at rest",
      () => `${db}-wal`,
      /refused: --from \S*live\.db-wal is the live database's write-ahead log \(-wal\)/,
    ],
    [
      'the signing key',
      () => join(data, 'signing-key.pem'),
      /refused: --from \S*signing-key\.pem is the server's snapshot-signing key/,
    ],
    [
      'a file that is not there',
      () => file('nothing.db'),
      /no file \S*nothing\.db: --from names a backup written by swe-scoring backup$/,
    ],
    ['a folder', () => file('folder.db'), /\S*folder\.db is not a file: --from names the backup file$/],
  ])('%s, in one line, and touches nothing', async (_what, from, message) => {
    const before = state();
    const res = await cli('restore', ['--from', from()], { DATABASE_PATH: db });
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr.trim()).toMatch(/^swe-scoring restore: /);
    expect(res.stderr.trim()).toMatch(message);
    expect(state()).toEqual(before);
  });

  it('on PostgreSQL (DATABASE_URL), pointing to pg_restore and db copy', async () => {
    const before = state();
    const res = await cli('restore', ['--from', backup], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
      DATABASE_PATH: db,
    });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(
      /^swe-scoring restore: DATABASE_URL is set: .*pg_restore.*db copy.*docs\/POSTGRES\.md\)$/,
    );
    expect(state()).toEqual(before);
  });

  it('without --from, exit 2', async () => {
    const res = await cli('restore', [], { DATABASE_PATH: db });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--from BACKUP is required');
  });

  it('but restores a backup of an older schema, saying the server migrates it at start', async () => {
    const older = backupWith('older.db', (d) =>
      d.exec('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)'),
    );
    const res = await cli('restore', ['--from', older], { DATABASE_PATH: db });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ competitions: 1, runs: 4, migrations: 10, pending: 1 });
    expect(res.stderr).toContain('(an older schema: the server applies 1 migrations at its next start)');
  });

  // A file system of a few MiB (tmpfs, mounted here: root only) with room for the database, not for the copy.
  it.runIf(process.getuid?.() === 0)('a full disk, in one line, leaving the database and no copy', async () => {
    const mounted = tmpfs.mount('small', '2m');
    const small = join(mounted, 'live.db');
    copyFileSync(db, small);
    fill(mounted);
    // Room for the lock's small files, not for a copy of the backup.
    truncateSync(join(mounted, 'filler'), statSync(join(mounted, 'filler')).size - 64 * 1024);
    expect(statSync(backup).size).toBeGreaterThan(128 * 1024);
    const before = readFileSync(small);
    const res = await cli('restore', ['--from', backup], { DATABASE_PATH: small });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr.trim()).toMatch(
      /^swe-scoring restore: cannot restore \(ENOSPC: no space left on device, .*\): nothing was changed; fix the cause, then restore again$/,
    );
    expect(readFileSync(small)).toEqual(before);
    expect(readdirSync(mounted).sort()).toEqual(['filler', 'live.db', 'live.db.lock']);
  });
});
