// `swe-scoring restore` killed (SIGKILL) at every point where it changes a file: before each write,
// rename, link, removal, fsync and chmod in the database's folder, and each SQLite pragma and close
// there (test/support/killPoints.ts picks the point; the command runs unchanged). Over a database a
// crash left with writes only in its -wal, each kill leaves a database that opens, passes
// integrity_check, and holds exactly the old content or exactly the backup's, never a mix; running
// the restore again then finishes it, with the old database kept aside whole. A server started while
// a restore runs is refused, naming the restore's pid.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ts from 'typescript';
import { cli, spawnCli } from '../cli/cli.js';
import { dumpAll, withReadOnly } from '../support/dbDump.js';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const KILL_POINTS_TS = fileURLToPath(new URL('../support/killPoints.ts', import.meta.url));
/**
 * killPoints.ts as plain JavaScript (TypeScript's transpileModule, in beforeAll): each restore the test stops preloads it
 * without tsx, whose start (a loader thread, every module transpiled) was over half of each process's
 * CPU time. Written inside the checkout, so that its better-sqlite3 resolves from node_modules.
 */
let killPoints: string | undefined;
const tmp = tempDir('restore-killed');
const template = join(tmp.dir, 'template');
const backup = join(tmp.dir, 'backup.db');
const LOGS = ['-wal', '-journal'];
let oldContent: string;
let newContent: string;
afterAll(async () => {
  await stopAllServers();
  tmp.remove();
  if (killPoints) rmSync(dirname(killPoints), { recursive: true, force: true });
});

/** A folder holding the old database as the crash left it: the file and its -wal. */
function freshFolder(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  for (const suffix of ['', '-wal']) copyFileSync(join(template, `db${suffix}`), join(dir, `db${suffix}`));
  return dir;
}

/** What SQLite opens at `path` (its logs applied, on a copy), after an integrity check. */
function contentOf(path: string): string {
  const scratch = join(tmp.dir, `scratch-${Math.random().toString(36).slice(2)}`);
  mkdirSync(scratch);
  for (const suffix of ['', ...LOGS])
    if (statSync(path + suffix, { throwIfNoEntry: false })) copyFileSync(path + suffix, join(scratch, `x.db${suffix}`));
  return withReadOnly(join(scratch, 'x.db'), (db) => {
    expect(db.pragma('integrity_check', { simple: true }), path).toBe('ok');
    return dumpAll(db);
  });
}

/** Runs the restore into `dir`, stopped at point `at` (0: none); its exit and what it said. */
function restoreStoppedAt(dir: string, at: number, pause = false) {
  const child = spawnCli(
    'restore',
    ['--from', backup],
    {
      DATABASE_PATH: join(dir, 'db'),
      KILL_POINTS_DIR: dir,
      KILL_POINTS_AT: String(at),
      KILL_POINTS_PAUSE: pause ? '1' : '0',
    },
    ['--import', killPoints!],
  );
  let err = '';
  const paused = new Promise<void>((resolve) =>
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      if (err.includes('\npaused\n')) resolve();
    }),
  );
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stderr: err })),
  );
  return { child, paused, exited };
}

describe.skipIf(TEST_ENGINE === 'postgres')('restore killed at any point', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    const code = ts.transpileModule(readFileSync(KILL_POINTS_TS, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const root = fileURLToPath(new URL('../../', import.meta.url));
    mkdirSync(join(root, '.vitest-tmp'), { recursive: true });
    killPoints = join(mkdtempSync(join(root, '.vitest-tmp', 'kill-points-')), 'killPoints.mjs');
    writeFileSync(killPoints, code);
    mkdirSync(template);
    const server = await startServer({ dbPath: join(template, 'db') });
    await seedRuns(server, 'kept', 3);
    expect((await cli('backup', ['--out', backup], { DATABASE_PATH: join(template, 'db') })).code).toBe(0);
    await seedRuns(server, 'later', 4);
    await server.stop('SIGKILL');
    expect(statSync(join(template, 'db-wal')).size).toBeGreaterThan(0);
    oldContent = contentOf(join(template, 'db'));
    newContent = contentOf(backup);
    expect(oldContent).not.toEqual(newContent);
  }, 60_000);

  it('leaves the old database or the new one, whole, at every point; run again, it finishes', async () => {
    const listed = await restoreStoppedAt(freshFolder('listing'), 0).exited;
    expect(listed.code, listed.stderr).toBe(0);
    const points = [...listed.stderr.matchAll(/^point (\d+): (.*)$/gm)].map((m) => m[2]!);
    // The steps that matter are among them: the checkpoint, the second name, the rename into place.
    const intoPlace = points.findIndex((p) => /^renameSync .*\.restore-\d+-[0-9a-f]+\.tmp -> .*\/db$/.test(p)) + 1;
    const link = points.findIndex((p) => /^linkSync .*\/db -> .*\/db\.before-restore-\d{8}T\d{6}Z$/.test(p)) + 1;
    expect(points.findIndex((p) => p.startsWith('pragma(wal_checkpoint(TRUNCATE))'))).toBeGreaterThanOrEqual(0);
    expect(link).toBeGreaterThan(0);
    expect(intoPlace).toBeGreaterThan(link);

    const seen: string[] = [];
    // Every point but those of taking and releasing the writer lock (test/e2e/writerLock.test.ts).
    const chosen = points.map((p, i) => (p.includes('/db.lock') ? 0 : i + 1)).filter((at) => at > 0);
    expect(chosen.length).toBeGreaterThan(15);
    for (const at of chosen) {
      const dir = freshFolder(`at-${at}`);
      const db = join(dir, 'db');
      const run = await restoreStoppedAt(dir, at).exited;
      expect(run.signal, `point ${at} (${points[at - 1]}): ${run.stderr}`).toBe('SIGKILL');
      const content = contentOf(db);
      const state = content === oldContent ? 'old' : content === newContent ? 'new' : 'a mix';
      expect(state, `killed before point ${at} (${points[at - 1]})`).not.toBe('a mix');
      expect(state, `killed before point ${at}`).toBe(at <= intoPlace ? 'old' : 'new');
      // Killed between the second name and the rename: the old file under two names.
      if (at > link && at <= intoPlace) expect(statSync(db).nlink).toBe(2);
      seen.push(state);

      const again = await cli('restore', ['--from', backup], { DATABASE_PATH: db });
      expect(again.code, `after point ${at}: ${again.stderr}`).toBe(0);
      expect(contentOf(db)).toEqual(newContent);
      const kept = readdirSync(dir).filter((f) => /^db\.before-restore-[0-9TZ-]+$/.test(f));
      expect(
        kept.map((f) => contentOf(join(dir, f))),
        `after point ${at}`,
      ).toContain(oldContent);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') || /^db-(wal|shm|journal)$/.test(f))).toEqual([]);
    }
    expect(new Set(seen)).toEqual(new Set(['old', 'new']));
  });

  it('a server started while a restore runs is refused, naming the restore', async () => {
    const dir = freshFolder('server-meanwhile');
    const db = join(dir, 'db');
    const listed = await restoreStoppedAt(freshFolder('listing-2'), 0).exited;
    const points = [...listed.stderr.matchAll(/^point (\d+): (.*)$/gm)].map((m) => m[2]!);
    // Paused as it copies the backup, the lock held.
    const copying = points.findIndex((p) => p.startsWith('fsyncSync')) + 1;
    expect(copying).toBeGreaterThan(0);
    const restore = restoreStoppedAt(dir, copying, true);
    await restore.paused;
    const refused = await startServer({ dbPath: db }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(refused).toContain(`${db} is in use by process ${restore.child.pid} (swe-scoring restore, since `);
    restore.child.kill('SIGKILL');
    expect((await restore.exited).signal).toBe('SIGKILL');
    expect(contentOf(db)).toEqual(oldContent);
  });

  it('a second restore while one runs is refused, and cannot remove the kept-aside name of the first', async () => {
    const dir = freshFolder('two-restores');
    const db = join(dir, 'db');
    const listed = await restoreStoppedAt(freshFolder('listing-3'), 0).exited;
    const points = [...listed.stderr.matchAll(/^point (\d+): (.*)$/gm)].map((m) => m[2]!);
    // Paused just after the kept-aside name was linked: the old file has two names.
    const linked = points.findIndex((p) => p.startsWith('linkSync')) + 2;
    const first = restoreStoppedAt(dir, linked, true);
    await first.paused;
    expect(statSync(db).nlink).toBe(2);
    const second = await cli('restore', ['--from', backup], { DATABASE_PATH: db });
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toMatch(
      new RegExp(
        `refused: .*db is in use by process ${first.child.pid} \\(swe-scoring restore, since .*\\): .*stop it, then restore$`,
      ),
    );
    expect(statSync(db).nlink).toBe(2);
    first.child.kill('SIGKILL');
    await first.exited;
    const again = await cli('restore', ['--from', backup], { DATABASE_PATH: db });
    expect(again.code, again.stderr).toBe(0);
    expect(contentOf(db)).toEqual(newContent);
    const kept = readdirSync(dir).filter((f) => /^db\.before-restore-[0-9TZ-]+$/.test(f));
    expect(kept.map((f) => contentOf(join(dir, f)))).toEqual([oldContent]);
  });
});
