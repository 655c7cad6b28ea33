// Freshness (src/db/pg/freshness.ts) on a real server: the versions every write transaction bumps,
// read so that a caller always gets a query sent after it asked, with concurrent callers sharing
// at most two queries (one when they come in the same turn).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, openPostgres } from '../../src/db/pg/client.js';
import { createFreshness, type Freshness } from '../../src/db/pg/freshness.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';

const server = await testPostgres('test/db/pgFreshness.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe.runIf(server.available)('competition versions, fresh for every caller', () => {
  let scratch: ScratchDatabase;
  let direct: pg.Pool;
  let proxy: TcpProxy;
  const pools: pg.Pool[] = [];
  const freshnesses: Freshness[] = [];
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_freshness');
    direct = await openPostgres(scratch.url, { max: 2 });
    const target = new URL(scratch.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterEach(async () => {
    await proxy.resume();
    await direct.query('DELETE FROM competition_versions');
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await Promise.all(freshnesses.map((f) => f.close()));
    await Promise.all(pools.map((p) => p.end()));
    await proxy?.close();
    await direct?.end();
    await scratch?.drop();
  });

  const textOf = (q: unknown) => (typeof q === 'string' ? q : ((q as { text?: string }).text ?? ''));

  /**
   * Freshness on a pool of its own, with the queries to its table counted: those of the pool and
   * those of the connections freshness opens (the version reads go on a connection of their own).
   */
  function counted(url = scratch.url, max = 4) {
    const pool = createPool(url, { max, applicationName: `swe-test-fresh-${pools.length}` });
    pools.push(pool);
    const spies = [vi.spyOn(pool, 'query')];
    const connections: pg.Client[] = [];
    const fresh = createFreshness(pool, () => {
      const client = new pg.Client(pool.options);
      connections.push(client);
      spies.push(vi.spyOn(client, 'query'));
      return client;
    });
    freshnesses.push(fresh);
    const sent = () =>
      spies.reduce(
        (n, spy) => n + spy.mock.calls.filter(([q]) => textOf(q).includes('competition_versions')).length,
        0,
      );
    return { pool, fresh, sent, connections };
  }

  const bump = (id: string) =>
    direct.query(
      `INSERT INTO competition_versions VALUES ($1, 1)
       ON CONFLICT (competition_id) DO UPDATE SET version = competition_versions.version + 1`,
      [id],
    );

  it('reads every competition version as a number', async () => {
    const { fresh } = counted();
    expect(await fresh.versions()).toEqual(new Map());
    await bump('a');
    await bump('a');
    await bump('b');
    expect(await fresh.versions()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
  });

  it('callers of one turn share a query, callers while it is in flight share the next, a caller after a settled one sends a new one', async () => {
    await bump('a');
    const { fresh, sent } = counted();
    const together = await Promise.all(Array.from({ length: 20 }, () => fresh.versions()));
    for (const r of together) expect(r).toEqual(new Map([['a', 1]]));
    expect(sent()).toBe(1);
    const first = fresh.versions();
    await vi.waitFor(() => expect(sent()).toBe(2)); // in flight now
    const riders = Array.from({ length: 19 }, () => fresh.versions());
    for (const r of await Promise.all([first, ...riders])) expect(r).toEqual(new Map([['a', 1]]));
    // One in flight, the other 19 ride the queued one: exactly 2 more.
    expect(sent()).toBe(3);
    await bump('a');
    expect(await fresh.versions()).toEqual(new Map([['a', 2]]));
    expect(sent()).toBe(4);
  });

  it('a write committed after a query was sent is seen by every caller that arrives after the write', async () => {
    await bump('c');
    const { pool, fresh, sent } = counted(proxy.urlFor(scratch.url));
    await fresh.versions(); // its connection open through the proxy, so the stall below hits a query
    // The warm-up query above leaves the same idle row behind: only a query started after this
    // moment is A (else, on a loaded machine, the wait below passed before A reached the server,
    // which then read the version the bump below wrote).
    const { rows: now } = await direct.query<{ at: string }>('SELECT clock_timestamp()::text AS at');
    // The server's answers stall in the proxy: query A reaches the server, runs, and its result waits.
    proxy.pause('toClient');
    const first = fresh.versions();
    await vi.waitFor(
      async () => {
        const { rows } = await direct.query<{ state: string; query: string }>(
          `SELECT state, query FROM pg_stat_activity WHERE application_name = $1 AND query_start > $2::timestamptz`,
          [pool.options.application_name, now[0]!.at],
        );
        expect(rows).toContainEqual({
          state: 'idle',
          query: expect.stringContaining('competition_versions') as string,
        });
      },
      { timeout: 3000, interval: 20 },
    );
    // A has read version 1. Another process commits version 2; then a reader arrives here.
    await bump('c');
    const second = fresh.versions();
    const third = fresh.versions();
    await proxy.resume();
    expect(await first).toEqual(new Map([['c', 1]])); // A was sent before the write: the test is meaningful
    expect(await second).toEqual(new Map([['c', 2]]));
    expect(await third).toBe(await second); // and the late callers shared one query
    expect(sent()).toBe(3);
  });

  it('a failed query fails every caller riding it, and the next call asks again', async () => {
    await bump('d');
    const { fresh } = counted(proxy.urlFor(scratch.url));
    await proxy.cut();
    const failed = await Promise.allSettled([fresh.versions(), fresh.versions(), fresh.versions()]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await proxy.resume();
    expect(await fresh.versions()).toEqual(new Map([['d', 1]]));
  });

  it('callers queued behind a query that fails get its failure, without a second query (one timeout at most)', async () => {
    await bump('e');
    const { fresh, sent } = counted(proxy.urlFor(scratch.url));
    await fresh.versions(); // its connection open through the proxy, so the stall below hits a query
    proxy.pause('both');
    const first = fresh.versions();
    await vi.waitFor(() => expect(sent()).toBe(2)); // in flight now
    const queued = [fresh.versions(), fresh.versions()];
    await proxy.cut();
    const settled = await Promise.allSettled([first, ...queued]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(sent()).toBe(2);
    await proxy.resume();
    expect(await fresh.versions()).toEqual(new Map([['e', 1]]));
  });

  it('reads on a connection of its own: answers while every pooled connection is taken, and closes it', async () => {
    await bump('f');
    const { pool, fresh, sent, connections } = counted(scratch.url, 1);
    const held = await pool.connect(); // the pool's only connection, taken (as by a long transaction)
    try {
      // Through the pool this read would wait for the held connection (5 s, then fail).
      const read = fresh.versions();
      const answered = await Promise.race([read, new Promise((r) => setTimeout(() => r('waited'), 1000))]);
      expect(answered).toEqual(new Map([['f', 1]]));
      expect(sent()).toBe(1);
      expect(connections).toHaveLength(1);
    } finally {
      held.release();
    }
    // The same connection serves the next reads; close() ends it.
    await fresh.versions();
    expect(connections).toHaveLength(1);
    const open = async () =>
      Number(
        (
          await direct.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%competition_versions%'`,
            [pool.options.application_name],
          )
        ).rows[0]!.n,
      );
    expect(await open()).toBe(1);
    await fresh.close();
    await vi.waitFor(async () => expect(await open()).toBe(0), { timeout: 3000, interval: 20 });
  });

  it('a connection ended by the server is replaced: a later read answers', async () => {
    await bump('g');
    const { pool, fresh, connections } = counted();
    await fresh.versions();
    await direct.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%competition_versions%'`,
      [pool.options.application_name],
    );
    // The read right after may still go to the ended connection (its error on the way) and fail.
    await vi.waitFor(async () => expect(await fresh.versions()).toEqual(new Map([['g', 1]])), {
      timeout: 3000,
      interval: 20,
    });
    expect(connections.length).toBe(2);
  });
});
