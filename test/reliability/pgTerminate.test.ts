// The server's PostgreSQL sessions terminated under it (pg_terminate_backend: FATAL 57P01, what a
// failover, an operator or the server's own idle-in-transaction timeout does) every few seconds
// while 32 writers are in their transactions (issue 43). The requests whose connection died get a
// 503 problem+json with Retry-After; the process stays up; once the terminations stop the next
// requests succeed, and every acknowledged run (and every refused batch, sent again) is stored once.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import { checkStored, emptyLog, prepareWriters, retryRefused, runWriters, statusCounts, WRITERS } from './pgWriters.js';

const KILL_EVERY_MS = 3_000;
const KILLS = 5;
/** Writing goes on this long after the last termination; the answers of its last part must all be 200. */
const CALM_MS = 8_000;
const ADMIN_TOKEN = 'pg-terminate-admin-token-77a2c';

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
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
    const settled = calmFrom + 2_000;
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
    expect(late.length).toBeGreaterThan(WRITERS);
    expect(late.filter((a) => a.status !== 200).map((a) => `${a.status}: ${a.text}`)).toEqual([]);

    await retryRefused(sends, log);
    await checkStored(dbPath, log, false);
    await server.stop();
    tmp.remove();
  }, 120_000);
});
