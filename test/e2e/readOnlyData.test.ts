// The data folder made read-only under a running server (a read-only bind mount laid over it, as
// root: root passes chmod's bits): the open files still take writes, the stop is clean (exit 0, no
// stack), and every acknowledged run is there at the next start once the folder is writable again.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { seedRuns } from '../support/seedServer.js';
import { startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('read-only-data');
const data = join(tmp.dir, 'data');
let server: ServerProcess | undefined;
let mounted = false;

afterAll(async () => {
  await server?.stop('SIGKILL');
  if (mounted) execFileSync('umount', ['-l', data]);
  tmp.remove();
});

const runs = async (s: ServerProcess) =>
  ((await (await fetch(`${s.baseUrl}/v1/competitions/c`)).json()) as { counts: { runs: number } }).counts.runs;

describe.runIf(TEST_ENGINE === 'sqlite' && process.getuid?.() === 0)(
  'a read-only data folder (bind mount, as root)',
  () => {
    it(
      'the running server keeps its open files, stops cleanly, and keeps every acknowledged run',
      { timeout: 120_000 },
      async () => {
        mkdirSync(data);
        const dbPath = join(data, 'scoring.db');
        server = await startServer({ dbPath });
        await seedRuns(server, 'c', 3);

        execFileSync('mount', ['--bind', data, data]);
        mounted = true;
        execFileSync('mount', ['-o', 'remount,bind,ro', data]);
        await seedRuns(server, 'c', 5);
        expect(await runs(server)).toBe(5);

        // The stop removed the lock's sidecar, which a read-only folder refuses: the exception escaped
        // the shutdown, and the process died with a stack instead of closing.
        const exit = await server.stop();
        expect(exit, server.output()).toEqual({ code: 0, signal: null });
        expect(server.output()).not.toMatch(/EROFS|\n\s+at /);

        execFileSync('umount', [data]);
        mounted = false;
        server = await startServer({ dbPath });
        expect(await runs(server)).toBe(5);
        await server.stop();
      },
    );
  },
);
