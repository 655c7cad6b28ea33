// The PostgreSQL store's transactions on a real server (issue 43): writers to one competition take
// turns before they take a connection, so a pool smaller than the queue on the competition's row
// still has a connection for everything else; a statement that fails rolls its transaction back at
// once on a connection that stays pooled; a session terminated under a transaction fails that
// transaction (unavailable: a 503), and the process and the pool go on.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, openPostgres } from '../../src/db/pg/client.js';
import { createPgStore } from '../../src/db/pg/store.js';
import { isUnavailable } from '../../src/db/pg/unavailable.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { ServiceUnavailable } from '../../src/errors.js';

const server = await testPostgres('test/db/pgTransactions.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

/** The sessions of the pools under test (application_name), as the server sees them. */
const APP = 'swe-scoring-tx-test';

describe.runIf(server.available)("the PostgreSQL store's transactions", () => {
  let scratch: ScratchDatabase;
  let admin: pg.Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_tx');
    admin = await openPostgres(scratch.url, { max: 2 });
  });
  afterAll(async () => {
    await admin?.end();
    await scratch?.drop();
  });

  /** Sessions of the pools under test that sit inside a transaction with nothing running. */
  async function idleInTransaction(): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'",
      [APP],
    );
    return rows[0]!.n;
  }

  /** A transaction on competition `c` that holds its row about `ms` (the time a big write takes on the server). */
  const slowWrite = (store: ReturnType<typeof createPgStore>, ms: number) =>
    store.transaction(
      async (tx) => {
        await tx.competitions.get('c');
        await new Promise((r) => setTimeout(r, ms));
      },
      { competitionId: 'c' },
    );

  it('32 writers to one competition on a pool of 2: a query from elsewhere still gets a connection at once', async () => {
    const pool = createPool(scratch.url, { max: 2, applicationName: APP });
    const store = createPgStore(pool);
    try {
      const writers = Array.from({ length: 32 }, () => slowWrite(store, 40));
      await new Promise((r) => setTimeout(r, 100));
      // Queued on the row with a connection each, 31 writers would take 31 x 40 ms to hand one back.
      const started = performance.now();
      await store.competitions.get('c');
      const ms = performance.now() - started;
      await Promise.all(writers);
      expect(ms, 'a read waited behind the writers queued on one competition').toBeLessThan(400);
      const { rows } = await admin.query<{ version: number }>(
        "SELECT version FROM competition_versions WHERE competition_id = 'c'",
      );
      expect(rows[0]!.version).toBe(32);
    } finally {
      await pool.end();
    }
  });

  it('a writer that waits its turn past the stated time is refused as unavailable, holding nothing', async () => {
    const pool = createPool(scratch.url, { max: 4, applicationName: APP });
    const store = createPgStore(pool, { turnWaitMs: 200 });
    try {
      const long = slowWrite(store, 600);
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      const err = await slowWrite(store, 0).then(
        () => expect.fail('the second writer got its turn'),
        (e: unknown) => e as { kind?: string },
      );
      expect(performance.now() - started).toBeLessThan(200 + 300);
      expect(err.kind).toBe('unavailable');
      // It never took a connection: only the first writer's is out.
      expect(pool.totalCount - pool.idleCount).toBe(1);
      await long;
      await slowWrite(store, 0); // the line moves on
    } finally {
      await pool.end();
    }
  });

  it('a statement cancelled by statement_timeout rolls its transaction back at once, on a connection that stays pooled', async () => {
    const pool = createPool(scratch.url, { max: 1, statementTimeoutMs: 200, applicationName: APP });
    const store = createPgStore(pool);
    try {
      await store.competitions.get('c');
      const client = await pool.connect();
      client.release();
      // A second session holds the competition's row (made first, whatever ran before): the writer's
      // bump waits and is cancelled. The holder is let go whatever the write did.
      await admin.query(
        "INSERT INTO competition_versions (competition_id, version) VALUES ('c', 0) ON CONFLICT DO NOTHING",
      );
      const holder = await admin.connect();
      let err: unknown = null;
      try {
        await holder.query('BEGIN');
        await holder.query("SET LOCAL lock_timeout = '5s'");
        await holder.query("UPDATE competition_versions SET version = version WHERE competition_id = 'c'");
        err = await slowWrite(store, 0).then(
          () => null,
          (e: unknown) => e,
        );
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      expect(err, 'the write went through a held row').not.toBeNull();
      // An outage to the layers above (ServiceUnavailable, a 503), with PostgreSQL's own error as its cause.
      expect(err).toBeInstanceOf(ServiceUnavailable);
      expect(((err as Error).cause as { code?: string }).code).toBe('57014');
      expect(isUnavailable(err)).toBe(true);
      expect(await idleInTransaction()).toBe(0);
      // The same connection, out of its transaction, serves the next write.
      const again = await pool.connect();
      expect(again).toBe(client);
      again.release();
      await slowWrite(store, 0);
    } finally {
      // Every client is idle here (checked), yet after the suite's earlier tests pool.end() can fail to
      // call back in this one; bounded, so a teardown hang is not taken for the behaviour under test.
      // Left to find: which listener keeps the pool from ending.
      await Promise.race([pool.end(), new Promise((r) => setTimeout(r, 3000))]);
    }
  });

  it('a session terminated inside a transaction fails it as unavailable; the process and the pool go on', async () => {
    const pool = createPool(scratch.url, { max: 2, applicationName: APP });
    const store = createPgStore(pool);
    try {
      const err = await store
        .transaction(
          async (tx) => {
            await tx.competitions.get('c');
            // Terminated between two statements: the server's FATAL arrives while no query runs.
            await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
              APP,
            ]);
            await new Promise((r) => setTimeout(r, 200));
            await tx.competitions.get('c');
          },
          { competitionId: 'c' },
        )
        .then(
          () => expect.fail('the transaction outlived its session'),
          (e: unknown) => e,
        );
      expect(isUnavailable(err), String(err)).toBe(true);
      expect(pool.totalCount, 'the dead connection was pooled again').toBe(0);
      await slowWrite(store, 0);
      expect(await idleInTransaction()).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
