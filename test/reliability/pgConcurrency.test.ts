// 32 writers, signed and bearer, post 200-run batches to one competition of a server process on
// PostgreSQL for 20 s, with the pool at its default size and at 2 (issue 43). The writers of
// one competition take turns in the process before they take a connection, so none of the
// server's sessions ever queues on a row (queued on the competition's row, they filled the pool),
// and none waits for a connection, a statement or its turn long enough to be refused. No request
// gets a 5xx, the server stays up, and the database holds every acknowledged run once, with
// counters that agree.
//
// Then the server's sessions are terminated under the same 32 writers (pg_terminate_backend: FATAL
// 57P01, what a failover, an operator or the idle-in-transaction timeout does) every few seconds:
// the requests whose connection died get a 503 problem+json with Retry-After; the process stays
// up; once the terminations stop the next requests succeed, and every acknowledged run (and every
// refused batch, sent again) is stored once. One file, so the three loads run one after another
// rather than on the same cores at once.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import {
  checkStored,
  emptyLog,
  percentileMs,
  prepareWriters,
  retryRefused,
  runWriters,
  statusCounts,
  WRITERS,
} from './pgWriters.js';

/**
 * How long the writers write, per pool size: 20 s (PG_CONCURRENCY_MS sets it). With the turns
 * skipped (src/db/pg/store.ts not calling turns.take), 20 s fail on both pools: the sampler, which
 * looks every 50 ms, saw sessions queued on the row in 316 of 319 looks (default pool) and in 195
 * of 304 (pool of 2).
 */
const DURATION_MS = Number(process.env.PG_CONCURRENCY_MS ?? 20_000);
const ADMIN_TOKEN = 'pg-concurrency-admin-token-5d1e0';

const KILL_EVERY_MS = 3_000;
const KILLS = 5;
/** Writing goes on this long after the last termination; the answers of its last part must all be 200. */
const CALM_MS = 10_000;

/**
 * Every 50 ms until stopped, the most sessions of the database seen queued on a row at once
 * (waiting on a `tuple` or `transactionid` lock: what a writer waiting on the competition's row
 * does), and every lock wait seen, by kind. A relation extension (`extend`) is a page being added
 * to a table that several sessions insert into, not a queue on a row, and is only reported.
 */
function sampleLockWaits(url: string): {
  stop(): Promise<{ onRows: number; looks: number; queuedLooks: number; seen: Record<string, number> }>;
} {
  let onRows = 0;
  let looks = 0;
  let queuedLooks = 0;
  const seen: Record<string, number> = {};
  let stopped = false;
  const sampling = (async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      while (!stopped) {
        const { rows } = await client.query<{ event: string; n: number }>(
          `SELECT wait_event AS event, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
          GROUP BY wait_event`,
        );
        let queued = 0;
        for (const { event, n } of rows) {
          seen[event] = Math.max(seen[event] ?? 0, n);
          if (event === 'tuple' || event === 'transactionid') queued += n;
        }
        onRows = Math.max(onRows, queued);
        looks++;
        if (queued > 0) queuedLooks++;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      return { onRows, looks, queuedLooks, seen };
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
      const lockWaitsSeen = await lockWaits.stop();

      const summary =
        `[pgConcurrency] pool ${pool}: ${WRITERS} writers for ${DURATION_MS / 1000} s, ` +
        `answers ${JSON.stringify(statusCounts(log))}, accepted ${log.accepted} runs, ` +
        `p50 ${percentileMs(log, 50)} ms, p99 ${percentileMs(log, 99)} ms, max ${percentileMs(log, 100)} ms; ` +
        `sessions queued on a row at once: at most ${lockWaitsSeen.onRows} ` +
        `(in ${lockWaitsSeen.queuedLooks} of ${lockWaitsSeen.looks} looks); ` +
        `lock waits seen (most at once, by kind): ${JSON.stringify(lockWaitsSeen.seen)}`;
      console.log(summary);
      expect(log.networkErrors, 'requests that got no answer').toEqual([]);
      expect(server.child.exitCode, `the server exited:\n${server.output().slice(-3000)}`).toBeNull();
      const failed = log.answers.filter((a) => a.status !== 200);
      expect(
        failed.slice(0, 5).map((a) => `${a.status} after ${Math.round(a.ms)} ms: ${a.text}`),
        summary,
      ).toEqual([]);
      expect(server.output()).not.toMatch(/canceling statement|statement timeout|57014/);
      expect(lockWaitsSeen.onRows, `connections queued on the competition's row: ${summary}`).toBe(0);
      const stored = await checkStored(dbPath, log, true);
      expect(stored).toBeGreaterThan(0);
      await server.stop();
      tmp.remove();
    },
    DURATION_MS + 120_000,
  );
});

describe.runIf(TEST_ENGINE === 'postgres')('PostgreSQL sessions terminated under 32 writers', () => {
  it('503 for the requests cut, the process stays up, the next requests succeed, nothing acknowledged is lost', async () => {
    const tmp = tempDir('pg-terminate');
    const dbPath = `${tmp.dir}/scoring.db`;
    const server = await startServer({ dbPath, adminToken: ADMIN_TOKEN });
    const sends = await prepareWriters(server.baseUrl, ADMIN_TOKEN);
    const admin = new pg.Client({ connectionString: (await postgresDatabaseFor(dbPath)).url });
    await admin.connect();

    const log = emptyLog();
    let stop = false;
    const writing = runWriters(sends, log, () => stop, 0x57e01);
    /** Sessions terminated, and how many of them were inside a transaction. */
    const killed = { sessions: 0, inTransaction: 0 };
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
      const { rows } = await admin.query<{ in_tx: boolean }>(
        `SELECT xact_start IS NOT NULL AS in_tx, pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      killed.sessions += rows.length;
      killed.inTransaction += rows.filter((r) => r.in_tx).length;
    }
    await admin.end();
    const calmFrom = Date.now();
    // Answers that began this long after the last termination: by then the pool has new connections.
    const settled = calmFrom + 3_000;
    await new Promise((r) => setTimeout(r, CALM_MS));
    stop = true;
    await writing;

    const summary =
      `[pgTerminate] ${WRITERS} writers, ${KILLS} terminations ${KILL_EVERY_MS / 1000} s apart: ` +
      `${killed.sessions} sessions (${killed.inTransaction} in a transaction); answers ${JSON.stringify(statusCounts(log))}`;
    console.log(summary);
    expect(log.networkErrors, `requests that got no answer:\n${server.output().slice(-3000)}`).toEqual([]);
    expect(server.child.exitCode, `the server exited:\n${server.output().slice(-3000)}`).toBeNull();
    expect(killed.inTransaction, 'no termination reached a transaction').toBeGreaterThan(0);

    const refused = log.answers.filter((a) => a.status !== 200);
    expect(refused.length, `no request was cut: ${summary}`).toBeGreaterThan(0);
    for (const a of refused) {
      expect(a.status, a.text).toBe(503);
      expect(a.contentType).toContain('application/problem+json');
      expect(a.retryAfter).toMatch(/^\d+$/);
    }
    const late = log.answers.filter((a) => a.startedAt >= settled);
    expect(late.length, `requests sent once the terminations were over: ${summary}`).toBeGreaterThan(0);
    expect(
      late.filter((a) => a.status !== 200).map((a) => `${a.status} after ${Math.round(a.ms)} ms: ${a.text}`),
      summary,
    ).toEqual([]);

    await retryRefused(sends, log);
    await checkStored(dbPath, log, false);
    await server.stop();
    tmp.remove();
  }, 120_000);
});
