// Freshness (src/db/pg/freshness.ts) on a real server: the versions every write transaction bumps,
// read so that a caller always gets a query sent after it asked, with concurrent callers sharing
// at most two queries.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, openPostgres } from '../../src/db/pg/client.js';
import { createFreshness } from '../../src/db/pg/freshness.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';

const server = await testPostgres('test/db/pgFreshness.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe.runIf(server.available)('competition versions, fresh for every caller', () => {
  let scratch: ScratchDatabase;
  let direct: pg.Pool;
  let proxy: TcpProxy;
  const pools: pg.Pool[] = [];
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
    await Promise.all(pools.map((p) => p.end()));
    await proxy?.close();
    await direct?.end();
    await scratch?.drop();
  });

  /** A pool whose queries to freshness's table can be counted. */
  function countedPool(url = scratch.url) {
    const pool = createPool(url, { max: 4, applicationName: `swe-test-fresh-${pools.length}` });
    pools.push(pool);
    const query = vi.spyOn(pool, 'query');
    const textOf = (q: unknown) => (typeof q === 'string' ? q : ((q as { text?: string }).text ?? ''));
    const sent = () => query.mock.calls.filter(([q]) => textOf(q).includes('competition_versions')).length;
    return { pool, sent };
  }

  const bump = (id: string) =>
    direct.query(
      `INSERT INTO competition_versions VALUES ($1, 1)
       ON CONFLICT (competition_id) DO UPDATE SET version = competition_versions.version + 1`,
      [id],
    );

  it('reads every competition version as a number', async () => {
    const { pool } = countedPool();
    const fresh = createFreshness(pool);
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

  it('20 concurrent callers cause at most 2 queries, and each caller after a settled one sends a new one', async () => {
    await bump('a');
    const { pool, sent } = countedPool();
    const fresh = createFreshness(pool);
    const results = await Promise.all(Array.from({ length: 20 }, () => fresh.versions()));
    expect(sent()).toBeLessThanOrEqual(2);
    for (const r of results) expect(r).toEqual(new Map([['a', 1]]));
    // One in flight, the other 19 ride the queued one: exactly 2.
    expect(sent()).toBe(2);
    await bump('a');
    expect(await fresh.versions()).toEqual(new Map([['a', 2]]));
    expect(sent()).toBe(3);
  });

  it('a write committed after a query was sent is seen by every caller that arrives after the write', async () => {
    await bump('c');
    const { pool, sent } = countedPool(proxy.urlFor(scratch.url));
    const fresh = createFreshness(pool);
    await pool.query('SELECT 1'); // one open connection through the proxy, so the stall below hits a query
    // The server's answers stall in the proxy: query A reaches the server, runs, and its result waits.
    proxy.pause('toClient');
    const first = fresh.versions();
    await vi.waitFor(
      async () => {
        const { rows } = await direct.query<{ state: string; query: string }>(
          `SELECT state, query FROM pg_stat_activity WHERE application_name = $1`,
          [pool.options.application_name],
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
    expect(sent()).toBe(2);
  });

  it('a failed query fails every caller riding it, and the next call asks again', async () => {
    await bump('d');
    const { pool } = countedPool(proxy.urlFor(scratch.url));
    const fresh = createFreshness(pool);
    await proxy.cut();
    const failed = await Promise.allSettled([fresh.versions(), fresh.versions(), fresh.versions()]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await proxy.resume();
    expect(await fresh.versions()).toEqual(new Map([['d', 1]]));
  });

  it('callers queued behind a query that fails get its failure, without a second query (one timeout at most)', async () => {
    await bump('e');
    const { pool, sent } = countedPool(proxy.urlFor(scratch.url));
    const fresh = createFreshness(pool);
    await pool.query('SELECT 1'); // one open connection through the proxy, so the stall below hits a query
    proxy.pause('both');
    const first = fresh.versions();
    const queued = [fresh.versions(), fresh.versions()];
    await vi.waitFor(() => expect(sent()).toBe(1));
    await proxy.cut();
    const settled = await Promise.allSettled([first, ...queued]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(sent()).toBe(1);
    await proxy.resume();
    expect(await fresh.versions()).toEqual(new Map([['e', 1]]));
  });
});
