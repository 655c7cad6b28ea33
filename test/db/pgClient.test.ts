// The production pool (src/db/pg/client.ts) on a real server: it migrates, its sessions carry the
// stated timeouts and name, int8 comes back as an exact number or not at all, an idle pooled
// connection is closed, and a session left idle inside a transaction is ended with its locks.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgres } from '../../src/db/pg/client.js';
import { isUnavailable } from '../../src/db/pg/unavailable.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgClient.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe.runIf(server.available)('openPostgres', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_client');
    pool = await openPostgres(scratch.url, {
      max: 3,
      statementTimeoutMs: 700,
      queryTimeoutMs: 900,
      idleInTransactionTimeoutMs: 250,
      idleTimeoutMs: 200,
      applicationName: 'swe-test-pg-client',
    });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  it('applies the migrations before it answers', async () => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'competition_versions'`,
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('sets statement_timeout, idle_in_transaction_session_timeout and application_name on every session', async () => {
    const { rows } = await pool.query(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle,
              current_setting('application_name') AS name`,
    );
    expect(rows).toEqual([{ statement: '700ms', idle: '250ms', name: 'swe-test-pg-client' }]);
  });

  it('reads int8 as a number, exact up to 2^53 - 1, and fails the query past it instead of rounding', async () => {
    const { rows } = await pool.query(
      `SELECT 9007199254740991::int8 AS max, -42::int8 AS neg, count(*) AS n FROM (VALUES (1), (2)) v`,
    );
    expect(rows).toEqual([{ max: Number.MAX_SAFE_INTEGER, neg: -42, n: 2 }]);
    const err = await pool.query(`SELECT 9007199254740992::int8 AS n`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(isUnavailable(err)).toBe(false);
    // The pool answers on: the failure was the value, not the connection.
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('leaves the global pg.types alone: another client still reads int8 as a string', async () => {
    const other = new pg.Client({ connectionString: scratch.url });
    await other.connect();
    try {
      expect((await other.query('SELECT 7::int8 AS n')).rows).toEqual([{ n: '7' }]);
    } finally {
      await other.end();
    }
  });

  it('closes a pooled connection left idle past idleTimeoutMs', async () => {
    await pool.query('SELECT 1');
    expect(pool.totalCount).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 400));
    expect(pool.totalCount).toBe(0);
  });

  it('a session idle inside a transaction past its timeout is ended and its row lock released', async () => {
    await pool.query(`INSERT INTO competition_versions VALUES ('idle-tx', 1)`);
    const holder = await pool.connect();
    const errors: Error[] = [];
    holder.on('error', (e) => errors.push(e));
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT version FROM competition_versions WHERE competition_id = 'idle-tx' FOR UPDATE`);
      // The holder goes quiet, as a process that lost its network would. Another writer gets the
      // row once the server ends the idle session (250 ms), well within its own statement timeout.
      const started = performance.now();
      await pool.query(`UPDATE competition_versions SET version = 2 WHERE competition_id = 'idle-tx'`);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThan(150); // it did wait for the lock
      expect(waited).toBeLessThan(700);
      await vi.waitFor(() => expect((errors[0] as pg.DatabaseError | undefined)?.code).toBe('25P03'));
    } finally {
      holder.release(true);
    }
  });
});
