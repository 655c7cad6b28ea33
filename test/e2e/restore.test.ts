// `swe-scoring restore --from BACKUP` as an operator runs it, with real server processes and files:
// refused while a server holds the database (naming its pid, touching nothing); over a database a
// crash left with writes only in its -wal, it puts the backup in place, exactly, keeps the old
// database whole beside it, and leaves the keys alone: the next server serves the backup's data
// and its key still verifies the snapshots it signed before the backup.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/cli.js';
import { dumpAll, withReadOnly } from '../support/dbDump.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('restore');
const data = join(tmp.dir, 'data');
const db = join(data, 'scoring.db');
const backup = join(tmp.dir, 'backup.db');
const KEYS = ['signing-key.pem', 'server-key'];
afterAll(async () => {
  await stopAllServers();
  tmp.remove();
});

/** The content of the database at `path` with its -wal applied, read from a copy (the files stay as they are). */
function contentOf(path: string): string {
  const scratch = join(tmp.dir, `scratch-${Math.random().toString(36).slice(2)}`);
  mkdirSync(scratch);
  copyFileSync(path, join(scratch, 'x.db'));
  if (statSync(`${path}-wal`, { throwIfNoEntry: false })) copyFileSync(`${path}-wal`, join(scratch, 'x.db-wal'));
  return withReadOnly(join(scratch, 'x.db'), dumpAll);
}

const files = () =>
  readdirSync(data)
    .sort()
    .map((name) => {
      const s = statSync(join(data, name));
      return `${name} ${s.ino} ${s.size} ${(s.mode & 0o777).toString(8)}`;
    });

async function json(server: ServerProcess, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };

// The SQLite file's command; on PostgreSQL it points to pg_restore (test/e2e/restoreRefusals.test.ts).
describe.skipIf(TEST_ENGINE === 'postgres')('restore --from a backup', { timeout: 180_000 }, () => {
  let keys: Buffer[];
  let publicKey: string;
  let oldContent: string;

  it('is refused while a server holds the database, naming its pid, and changes nothing', async () => {
    mkdirSync(data);
    const first = await startServer({ dbPath: db });
    await seedRuns(first, 'kept', 5);
    const snap = await json(first, '/v1/competitions/kept/snapshots', { method: 'POST', headers: admin, body: '{}' });
    expect(snap.status).toBe(201);
    const base = `${first.baseUrl}/v1/competitions/kept/snapshots/1`;
    writeFileSync(join(tmp.dir, 'snapshot.json'), Buffer.from(await (await fetch(base)).arrayBuffer()));
    writeFileSync(join(tmp.dir, 'input.ndjson'), Buffer.from(await (await fetch(`${base}/input`)).arrayBuffer()));
    publicKey = (await json(first, '/v1/identity')).body.publicKey as string;
    expect((await cli('backup', ['--out', backup], { DATABASE_PATH: db })).code).toBe(0);
    // Written after the backup, and left in the -wal by a crash.
    await seedRuns(first, 'later', 7);
    await first.stop('SIGKILL');
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    const alone = join(tmp.dir, 'alone.db');
    copyFileSync(db, alone);
    expect(withReadOnly(alone, dumpAll)).not.toEqual(contentOf(db)); // the file alone lacks the -wal's writes
    keys = KEYS.map((k) => readFileSync(join(data, k)));

    const server = await startServer({ dbPath: db });
    const before = files();
    const res = await cli('restore', ['--from', backup], { DATABASE_PATH: db });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr.trim()).toMatch(
      new RegExp(
        `^swe-scoring restore: refused: .*scoring\\.db is in use by process ${server.pid} \\(swe-scoring serve, since .*\\).*stop it, then restore$`,
      ),
    );
    expect(files()).toEqual(before);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    expect((await json(server, '/v1/competitions/later')).body).toMatchObject({ counts: { runs: 7 } });
    await server.stop('SIGKILL');
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    oldContent = contentOf(db);
    expect(oldContent).toContain('later');
  });

  it('over a database with writes only in its -wal: the result is the backup, the old one kept whole beside it', async () => {
    const res = await cli('restore', ['--from', backup], { DATABASE_PATH: db });
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as Record<string, unknown>;
    const aside = out.keptAside as string;
    expect(aside).toMatch(/\/scoring\.db\.before-restore-\d{8}T\d{6}Z$/);
    expect(out).toMatchObject({ competitions: 1, runs: 5, pending: 0 });
    expect(res.stderr).toContain(`restored ${backup} to `);
    expect(res.stderr).toContain(': 1 competitions, 5 runs');
    expect(res.stderr).toContain(`the database it replaced is kept as ${aside}`);
    expect(res.stderr).toContain(
      `not in the database, and kept as they are:\n  the server's snapshot-signing key: ${join(data, 'signing-key.pem')}\n`,
    );
    // Only the files that exist: this server never wrote an admin token file.
    expect(res.stderr).not.toContain('admin token file');

    expect(contentOf(db)).toEqual(withReadOnly(backup, dumpAll));
    expect(contentOf(aside)).toEqual(oldContent);
    expect(readdirSync(data).filter((f) => /-wal$|-shm$|-journal$|\.tmp$/.test(f))).toEqual([]);
    for (const f of [db, aside]) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    expect(KEYS.map((k) => readFileSync(join(data, k)))).toEqual(keys);
  });

  it("a server started after it serves the backup's data, and its key still verifies the earlier snapshot", async () => {
    const server = await startServer({ dbPath: db });
    expect((await json(server, '/v1/competitions/kept')).body).toMatchObject({ counts: { runs: 5 } });
    expect((await json(server, '/v1/competitions/later')).status).toBe(404);
    const identity = await json(server, '/v1/identity');
    expect(identity.body.publicKey).toBe(publicKey);
    writeFileSync(join(tmp.dir, 'identity.json'), JSON.stringify(identity.body));
    await server.stop();
    const verified = await cli('verify', [
      join(tmp.dir, 'snapshot.json'),
      join(tmp.dir, 'input.ndjson'),
      '--identity',
      join(tmp.dir, 'identity.json'),
    ]);
    expect(verified.stdout).toMatch(/^ok\s+signature/m);
    expect(verified.code).toBe(0);
  });
});
