// Real faults between the server and PostgreSQL, made by a TCP proxy in front of the real server
// (test/support/tcpProxy.ts) or by the server itself (pg_terminate_backend, a connection limit):
// every wait ends within its stated timeout with an error isUnavailable accepts (the 503), the
// pool and the notifier come back by themselves, and real errors are not taken for outages.
import { drizzle } from 'drizzle-orm/node-postgres';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, openPostgres, type PostgresOptions } from '../../src/db/pg/client.js';
import { isUnavailable } from '../../src/db/pg/unavailable.js';
import { startNotifier, WRITES_CHANNEL, type WriteNotification } from '../../src/db/pg/notifier.js';
import { competitionVersions } from '../../src/db/pg/schema.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';

const server = await testPostgres('test/db/pgFaults.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

/** Small stated timeouts, so each fault shows within a second. */
const FAST: PostgresOptions = { connectTimeoutMs: 500, statementTimeoutMs: 300, queryTimeoutMs: 600 };
/** Slack on top of a stated timeout for timers and a loaded 2-core machine. */
const SLACK_MS = 400;

async function failure(work: Promise<unknown>): Promise<{ err: Error; ms: number }> {
  const started = performance.now();
  try {
    await work;
  } catch (err) {
    return { err: err as Error, ms: performance.now() - started };
  }
  throw new Error('expected a failure');
}

describe.runIf(server.available)('faults between the server and PostgreSQL', () => {
  let scratch: ScratchDatabase;
  let direct: pg.Pool;
  let proxy: TcpProxy;
  let proxied: string;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_faults');
    direct = await openPostgres(scratch.url, { max: 2 });
    const target = new URL(scratch.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    proxied = proxy.urlFor(scratch.url);
  });
  afterEach(async () => {
    await proxy.resume();
  });
  afterAll(async () => {
    await proxy?.resume();
    await Promise.all(pools.map((p) => p.end()));
    await proxy?.close();
    await direct?.end();
    await scratch?.drop();
  });

  function pool(options: PostgresOptions = {}) {
    const warnings: string[] = [];
    const p = createPool(proxied, { ...FAST, ...options, logger: { warn: (_obj, msg) => warnings.push(msg) } });
    pools.push(p);
    return { pool: p, warnings };
  }

  const one = async (p: pg.Pool) => (await p.query<{ one: number }>('SELECT 1 AS one')).rows;

  describe('the pool', () => {
    it('cut: idle connections fail without ending the process, a query is refused at once, and after resume it answers', async () => {
      const { pool: p, warnings } = pool();
      await one(p);
      await proxy.cut();
      // The idle client's 'error' went to the pool's listener, not to an uncaught exception.
      await vi.waitFor(() => expect(warnings).toEqual(['PostgreSQL: an idle pooled connection failed']));
      const { err, ms } = await failure(p.query('SELECT 1'));
      expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
      expect(isUnavailable(err)).toBe(true);
      expect(ms).toBeLessThan(FAST.connectTimeoutMs! + SLACK_MS);
      await proxy.resume();
      expect(await one(p)).toEqual([{ one: 1 }]);
    });

    it('cut during a query: it fails with the lost connection, not a hang', async () => {
      const { pool: p } = pool();
      await one(p);
      const running = failure(p.query('SELECT pg_sleep(0.2)'));
      await new Promise((r) => setTimeout(r, 50));
      await proxy.cut();
      const { err } = await running;
      expect(err.message).toBe('Connection terminated unexpectedly');
      expect(isUnavailable(err)).toBe(true);
    });

    it('blackhole: a query on an open connection fails at query_timeout, a new connection at the connect timeout; after resume it answers', async () => {
      const { pool: p } = pool({ max: 1 });
      await one(p);
      proxy.pause();
      const onOpen = await failure(p.query('SELECT 1'));
      expect(onOpen.err.message).toBe('Query read timeout');
      expect(isUnavailable(onOpen.err)).toBe(true);
      expect(onOpen.ms).toBeGreaterThan(FAST.queryTimeoutMs! - 50);
      expect(onOpen.ms).toBeLessThan(FAST.queryTimeoutMs! + SLACK_MS);
      // That connection was dropped; the next query needs a new one, which the blackhole swallows.
      const onNew = await failure(p.query('SELECT 1'));
      expect(onNew.err.message).toBe('Connection terminated due to connection timeout');
      expect(isUnavailable(onNew.err)).toBe(true);
      expect(onNew.ms).toBeLessThan(FAST.connectTimeoutMs! + SLACK_MS);
      await proxy.resume();
      expect(await one(p)).toEqual([{ one: 1 }]);
    });

    it('blackhole: a connection checked out by hand and released plainly after a timeout is not reused', async () => {
      // drizzle's transactions do this: pool.connect(), queries, then release() with no error.
      const { pool: p } = pool({ max: 1 });
      const client = await p.connect();
      proxy.pause();
      const { err } = await failure(client.query('SELECT 1'));
      expect(err.message).toBe('Query read timeout');
      client.release();
      expect(p.totalCount).toBe(0);
      await proxy.resume();
      expect(await one(p)).toEqual([{ one: 1 }]);
    });

    it('all connections busy: a query waits the connect timeout at most', async () => {
      const { pool: p } = pool({ max: 1 });
      const held = await p.connect();
      try {
        const { err, ms } = await failure(p.query('SELECT 1'));
        expect(err.message).toBe('timeout exceeded when trying to connect');
        expect(isUnavailable(err)).toBe(true);
        expect(ms).toBeLessThan(FAST.connectTimeoutMs! + SLACK_MS);
      } finally {
        held.release();
      }
    });

    it('a statement past statement_timeout is cancelled by the server (57014) and the connection stays usable', async () => {
      const { pool: p } = pool({ max: 1 });
      const { err, ms } = await failure(p.query('SELECT pg_sleep(5)'));
      expect((err as pg.DatabaseError).code).toBe('57014');
      expect(isUnavailable(err)).toBe(true);
      expect(ms).toBeLessThan(FAST.statementTimeoutMs! + SLACK_MS);
      expect(await one(p)).toEqual([{ one: 1 }]);
    });

    it('a backend terminated by an administrator (57P01) during a query', async () => {
      const applicationName = 'swe-test-faults-terminated';
      const { pool: p } = pool({ statementTimeoutMs: 10_000, queryTimeoutMs: 10_000, applicationName });
      const running = failure(p.query('SELECT pg_sleep(5)'));
      await vi.waitFor(
        async () => {
          const { rows } = await direct.query(
            `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`,
            [applicationName],
          );
          expect(rows).toEqual([{ ok: true }]);
        },
        { timeout: 3000, interval: 20 },
      );
      const { err, ms } = await running;
      expect((err as pg.DatabaseError).code).toBe('57P01');
      expect(isUnavailable(err)).toBe(true);
      expect(ms).toBeLessThan(3000);
      expect(await one(p)).toEqual([{ one: 1 }]);
    });

    it('too many connections (53300) is unavailable', async () => {
      const role = `swe_test_role_${randomBytes(4).toString('hex')}`;
      await direct.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`);
      try {
        const url = new URL(scratch.url);
        url.username = role;
        const p = createPool(url.toString(), FAST);
        try {
          const { err } = await failure(p.query('SELECT 1'));
          expect((err as pg.DatabaseError).code).toBe('53300');
          expect(isUnavailable(err)).toBe(true);
        } finally {
          await p.end();
        }
      } finally {
        await direct.query(`DROP ROLE ${role}`);
      }
    });
  });

  describe('real errors are not outages', () => {
    it('syntax, unique, NOT NULL, CHECK and foreign key violations, an unknown table, an int8 past 2^53 - 1', async () => {
      await direct.query(`INSERT INTO competition_versions VALUES ('dup', 1)`);
      await direct.query(`INSERT INTO competitions (id, name, final_stages) VALUES ('c', 'c', '[]')`);
      const task = (competition: string, inputSum: number) =>
        direct.query(
          `INSERT INTO tasks (competition_id, id, type, stage, baseline_input_sum) VALUES ($1, 't', 'x', 'x', $2)`,
          [competition, inputSum],
        );
      const errors = [
        await failure(direct.query('SELEC 1')),
        await failure(direct.query(`INSERT INTO competition_versions VALUES ('dup', 2)`)),
        await failure(direct.query(`INSERT INTO competitions (id, name) VALUES ('x', 'x')`)),
        await failure(task('c', 2 ** 53)),
        await failure(task('no-such-competition', 1)),
        await failure(direct.query('SELECT * FROM no_such_table')),
        await failure(direct.query('SELECT 9007199254740993::int8')),
      ];
      expect(errors.map(({ err }) => (err as pg.DatabaseError).code ?? err.name)).toEqual([
        '42601',
        '23505',
        '23502',
        '23514',
        '23503',
        '42P01',
        'RangeError',
      ]);
      for (const { err } of errors) expect(isUnavailable(err), err.message).toBe(false);
    });

    it('through drizzle, which wraps driver errors: the cause decides', async () => {
      const { pool: p } = pool();
      const db = drizzle({ client: p });
      await db.insert(competitionVersions).values({ competitionId: 'drizzle', version: 1 });
      const constraint = await failure(db.insert(competitionVersions).values({ competitionId: 'drizzle', version: 2 }));
      expect(constraint.err.cause).toMatchObject({ code: '23505' });
      expect(isUnavailable(constraint.err)).toBe(false);
      await proxy.cut();
      const outage = await failure(db.select().from(competitionVersions));
      expect(outage.err).not.toBe(outage.err.cause);
      expect(isUnavailable(outage.err)).toBe(true);
    });
  });

  describe('the notifier', () => {
    function listen(applicationName: string) {
      const got: WriteNotification[] = [];
      let resets = 0;
      const notifier = startNotifier(proxied, {
        applicationName,
        onNotify: (n) => got.push(n),
        onReset: () => (resets += 1),
        connectTimeoutMs: 500,
        heartbeatMs: 200,
        heartbeatTimeoutMs: 300,
        minBackoffMs: 20,
        maxBackoffMs: 200,
      });
      return { notifier, got, resets: () => resets };
    }

    let version = 0;
    /** Sends a notification (directly, not through the proxy) until the notifier has it. */
    async function roundTrip(got: WriteNotification[]): Promise<void> {
      version += 1;
      const payload = JSON.stringify({ competitionId: 'faults', version });
      await direct.query('SELECT pg_notify($1, $2)', [WRITES_CHANNEL, payload]);
      await vi.waitFor(() => expect(got.at(-1)).toEqual({ competitionId: 'faults', version }), { timeout: 2000 });
    }

    it('after cut and resume it reconnects by itself, calls onReset, and hears notifications again', async () => {
      const { notifier, got, resets } = listen('swe-test-faults-listen-cut');
      try {
        await notifier.ready();
        await roundTrip(got);
        await proxy.cut();
        await vi.waitFor(() => expect(notifier.connected()).toBe(false));
        await new Promise((r) => setTimeout(r, 300)); // a few refused attempts
        expect(resets()).toBe(0);
        await proxy.resume();
        await vi.waitFor(() => expect(resets()).toBe(1), { timeout: 2000 });
        expect(notifier.connected()).toBe(true);
        await roundTrip(got);
      } finally {
        await notifier.close();
      }
    });

    it('after pg_terminate_backend of its session it reconnects, calls onReset, and hears notifications again', async () => {
      const applicationName = 'swe-test-faults-listen-kill';
      const { notifier, got, resets } = listen(applicationName);
      try {
        await notifier.ready();
        const { rows } = await direct.query(
          'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
          [applicationName],
        );
        expect(rows).toEqual([{ ok: true }]);
        await vi.waitFor(() => expect(resets()).toBe(1), { timeout: 2000 });
        await roundTrip(got);
      } finally {
        await notifier.close();
      }
    });

    it('close() returns within a second on a blackholed connection', async () => {
      const { notifier } = listen('swe-test-faults-listen-close');
      await notifier.ready();
      proxy.pause();
      const started = performance.now();
      await notifier.close();
      expect(performance.now() - started).toBeLessThan(1000 + SLACK_MS);
      expect(notifier.connected()).toBe(false);
    });

    it('a blackholed connection is found by the heartbeat; after resume it reconnects and hears again', async () => {
      const { notifier, got, resets } = listen('swe-test-faults-listen-pause');
      try {
        await notifier.ready();
        proxy.pause();
        // heartbeat every 200 ms, 300 ms to answer
        await vi.waitFor(() => expect(notifier.connected()).toBe(false), { timeout: 1500 });
        await proxy.resume();
        await vi.waitFor(() => expect(resets()).toBe(1), { timeout: 2000 });
        await roundTrip(got);
      } finally {
        await notifier.close();
      }
    });
  });
});
