// The files that hold the answer keys or a secret are the owner's alone, whatever the umask: a
// first start creates its folders 0700 and the database, its -wal and -shm, the writer lock and the
// signing key 0600; the admin token generated beside a new database gets a 0700 folder too; and a
// start tightens such files left readable by others, saying which in the log.
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('file-modes');
const modeOf = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;
const FILES = ['live.db', 'live.db-wal', 'live.db-shm', 'live.db.lock', 'live.db.lock.pid', 'signing-key.pem'];

describe.skipIf(TEST_ENGINE === 'postgres')('modes of the data files', { timeout: 120_000 }, () => {
  let umask: number;
  beforeAll(() => {
    // The usual umask, which leaves new files readable by everyone (0644); the servers inherit it.
    umask = process.umask(0o022);
  });
  afterAll(async () => {
    process.umask(umask);
    await stopAllServers();
    tmp.remove();
  });

  const dir = join(tmp.dir, 'new', 'deeper');
  const db = join(dir, 'live.db');

  it('a first start creates its folders 0700 and every data and key file 0600', async () => {
    const server = await startServer({ dbPath: db });
    await seedRuns(server, 'c', 2);
    expect(modeOf(join(tmp.dir, 'new'))).toBe('0700');
    expect(modeOf(dir)).toBe('0700');
    expect(Object.fromEntries(FILES.map((f) => [f, modeOf(join(dir, f))]))).toEqual(
      Object.fromEntries(FILES.map((f) => [f, '0600'])),
    );
    // Killed, so that its -wal and -shm stay for the next test.
    await server.stop('SIGKILL');
  });

  it('a start tightens data and key files left readable by others, and names them in the log', async () => {
    for (const f of FILES) chmodSync(join(dir, f), 0o644);
    const server = await startServer({ dbPath: db });
    expect(Object.fromEntries(FILES.map((f) => [f, modeOf(join(dir, f))]))).toEqual(
      Object.fromEntries(FILES.map((f) => [f, '0600'])),
    );
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('readable by others'));
    expect(line, server.output()).toBeDefined();
    const logged = (JSON.parse(line!) as { files: { file: string; from: string; to: string }[] }).files;
    for (const f of ['live.db', 'live.db-wal', 'live.db-shm', 'signing-key.pem'])
      expect(logged).toContainEqual({ file: join(dir, f), from: '0644', to: '0600' });
    await server.stop();
  });

  it('the admin token generated beside a new database is 0600 in a folder made 0700', () => {
    const folder = join(tmp.dir, 'token-home');
    const config = loadConfig({ DATABASE_PATH: join(folder, 'x.db') });
    expect(config.adminTokenGenerated).toBe(true);
    expect(modeOf(folder)).toBe('0700');
    expect(modeOf(join(folder, 'admin-token'))).toBe('0600');
  });
});
