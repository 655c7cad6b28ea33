// PostgreSQL out of reach, as the operator sees it from a real server process: the 503s counted
// and logged by why, the pool's connections and waiters, and the two connections of its own (the
// notifier's LISTEN and the version reads) lost and back, each on /metrics and in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE, postgresDatabaseFor } from '../support/engine.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';
import { logLines, sample } from '../support/observe.js';

const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const C = '/v1/competitions/watched';

describe.runIf(TEST_ENGINE === 'postgres')('PostgreSQL down and back, on /metrics and in the log', () => {
  let proxy: TcpProxy;
  let server: ServerProcess;
  const call = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: method === 'GET' ? {} : admin,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    ).status;

  beforeAll(async () => {
    const db = await postgresDatabaseFor();
    const url = new URL(db.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    server = await startServer({
      dbPath: '/unused',
      logLevel: 'info',
      env: { DATABASE_URL: proxy.urlFor(db.url), DATABASE_TIMEOUT_MS: '1000', DATABASE_POOL_SIZE: '4' },
    });
    expect(await call('PUT', C, { name: 'Watched' })).toBe(201);
    expect(await call('GET', `${C}/leaderboard`)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await stopAllServers();
    await proxy?.close();
  });

  it('cut: 503s counted as database-unavailable, the notifier and the version reads lost; back: each says so', async () => {
    expect(await sample(server, 'scoring_pg_pool_max_connections')).toBe(4);
    expect(await sample(server, 'scoring_pg_pool_connections')).toBeGreaterThan(0);
    expect(await sample(server, 'scoring_pg_pool_waiting_requests')).toBe(0);
    expect(await sample(server, 'scoring_pg_notifier_listening')).toBe(1);

    await proxy.cut();
    expect(await call('GET', `${C}/leaderboard`)).toBe(503);
    expect(await call('GET', `${C}/runs`)).toBe(503);
    // /metrics answers while the database does not.
    expect(await sample(server, 'scoring_requests_refused_total{reason="database-unavailable"}')).toBe(2);
    await expect.poll(() => sample(server, 'scoring_pg_notifier_listening'), { timeout: 15_000 }).toBe(0);
    expect(await sample(server, 'scoring_pg_connections_lost_total{connection="versions"}')).toBeGreaterThan(0);
    const lines = logLines(server);
    expect(lines.filter((l) => l.msg === 'database unavailable')).toHaveLength(2);
    expect(lines.some((l) => l.msg === 'PostgreSQL version reads: connection lost')).toBe(true);
    expect(lines.some((l) => l.msg === 'PostgreSQL notifier: connection lost, reconnecting')).toBe(true);

    await proxy.resume();
    await expect.poll(() => sample(server, 'scoring_pg_notifier_listening'), { timeout: 15_000 }).toBe(1);
    expect(await call('GET', `${C}/leaderboard`)).toBe(200);
    expect(await sample(server, 'scoring_pg_notifier_reconnects_total')).toBeGreaterThanOrEqual(1);
    const back = logLines(server).find((l) => l.msg === 'PostgreSQL notifier: listening again');
    expect(back?.level).toBe(30);
    expect(back?.downMs).toBeGreaterThan(0);
  }, 60_000);

  it('slow: with every pooled connection waiting on a silent database, the requests waiting for one show', async () => {
    await expect.poll(() => call('GET', `${C}/leaderboard`), { timeout: 15_000 }).toBe(200);
    const before = await sample(server, 'scoring_requests_refused_total{reason="database-unavailable"}');
    proxy.pause();
    const writes = Array.from({ length: 8 }, (_, i) => call('PUT', `/v1/competitions/slow-${i}`, { name: 'slow' }));
    await expect.poll(() => sample(server, 'scoring_pg_pool_waiting_requests'), { timeout: 5_000 }).toBeGreaterThan(0);
    expect(await sample(server, 'scoring_pg_pool_connections')).toBe(4);
    // /metrics answers at once while the database is silent.
    const started = performance.now();
    expect(await sample(server, 'scoring_validators_active')).toBe(0);
    expect(performance.now() - started).toBeLessThan(500);
    expect(await Promise.all(writes)).toEqual(Array(8).fill(503));
    expect(await sample(server, 'scoring_requests_refused_total{reason="database-unavailable"}')).toBe(before + 8);
    await proxy.resume();
    await expect.poll(() => call('GET', `${C}/leaderboard`), { timeout: 15_000 }).toBe(200);
  }, 60_000);
});

describe.runIf(TEST_ENGINE === 'postgres')('the validators read for /metrics on a silent database', () => {
  let proxy: TcpProxy;
  let server: ServerProcess;

  beforeAll(async () => {
    const db = await postgresDatabaseFor();
    const url = new URL(db.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    // One pooled connection, and a statement allowed 2 × 10 s + 2 s: longer than the 5 s between reads.
    server = await startServer({
      dbPath: '/unused',
      env: { DATABASE_URL: proxy.urlFor(db.url), DATABASE_TIMEOUT_MS: '10000', DATABASE_POOL_SIZE: '1' },
    });
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await stopAllServers();
    await proxy?.close();
  });

  it('starts no read while the last one waits: nothing queues for the pool behind it', async () => {
    proxy.pause();
    // The read every 5 s: the first after the pause comes within 5 s and holds the pool's one
    // connection for up to 22 s; a second started 5 s later beside it would wait for that connection.
    await new Promise((r) => setTimeout(r, 11_000));
    expect(await sample(server, 'scoring_pg_pool_waiting_requests')).toBe(0);
    await proxy.resume();
  }, 60_000);
});
