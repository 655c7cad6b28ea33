// 32 writers, signed and bearer, post 200-run batches to one competition of a server process on
// PostgreSQL for a minute, with the pool at its default size and at 2 (issue 43). Writers to one
// competition take turns on its version row; none may wait for a connection, a statement or the
// row long enough to be cancelled, and none of the server's sessions ever waits on a lock: its
// writers take turns in the process, not on the row with a connection each. No request gets a
// 5xx, the server stays up, and the database holds every acknowledged run once, with counters
// that agree.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import { checkStored, emptyLog, percentileMs, prepareWriters, runWriters, statusCounts, WRITERS } from './pgWriters.js';

/** How long the writers write, per pool size: a minute (PG_CONCURRENCY_MS shortens it while working on it). */
const DURATION_MS = Number(process.env.PG_CONCURRENCY_MS ?? 60_000);
const ADMIN_TOKEN = 'pg-concurrency-admin-token-5d1e0';

/** Every 200 ms until stopped, the most sessions of the database seen waiting on a lock at once. */
function sampleLockWaits(url: string): { stop(): Promise<number> } {
  let max = 0;
  let stopped = false;
  const sampling = (async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      while (!stopped) {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
        );
        max = Math.max(max, rows[0]!.n);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      return max;
    },
  };
}

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

describe.runIf(TEST_ENGINE === 'postgres')('32 writers to one competition on PostgreSQL', () => {
  it.each<{ pool: string; env: Record<string, string> }>([
    { pool: 'default', env: {} },
    { pool: '2', env: { DATABASE_POOL_SIZE: '2' } },
  ])(
    'pool $pool: no 5xx, no statement cancelled, every acknowledged run stored once',
    async ({ pool, env }) => {
      const tmp = tempDir(`pg-concurrency-${pool}`);
      const dbPath = `${tmp.dir}/scoring.db`;
      const server = await startServer({ dbPath, adminToken: ADMIN_TOKEN, env });
      const sends = await prepareWriters(server.baseUrl, ADMIN_TOKEN);
      const log = emptyLog();
      const lockWaits = sampleLockWaits((await postgresDatabaseFor(dbPath)).url);
      const end = Date.now() + DURATION_MS;
      await runWriters(sends, log, () => Date.now() > end, 0x43c0 + (pool === '2' ? 1000 : 0));
      const mostWaitingOnLocks = await lockWaits.stop();

      const summary =
        `[pgConcurrency] pool ${pool}: ${WRITERS} writers for ${DURATION_MS / 1000} s, ` +
        `answers ${JSON.stringify(statusCounts(log))}, accepted ${log.accepted} runs, ` +
        `p50 ${percentileMs(log, 50)} ms, p99 ${percentileMs(log, 99)} ms, max ${percentileMs(log, 100)} ms; ` +
        `sessions waiting on a lock at once: at most ${mostWaitingOnLocks}`;
      console.log(summary);
      expect(log.networkErrors, 'requests that got no answer').toEqual([]);
      expect(server.child.exitCode, `the server exited:\n${server.output().slice(-3000)}`).toBeNull();
      const failed = log.answers.filter((a) => a.status !== 200);
      expect(
        failed.slice(0, 5).map((a) => `${a.status} after ${Math.round(a.ms)} ms: ${a.text}`),
        summary,
      ).toEqual([]);
      expect(server.output()).not.toMatch(/canceling statement|statement timeout|57014/);
      expect(mostWaitingOnLocks, `connections queued on the competition's row: ${summary}`).toBe(0);
      const stored = await checkStored(dbPath, log, true);
      expect(stored).toBeGreaterThan(0);
      await server.stop();
      tmp.remove();
    },
    DURATION_MS + 120_000,
  );
});
