// Three server processes on one PostgreSQL database under the mixed load of ./pgReplicasKit.ts,
// while faults come at random moments: `pg_terminate_backend` of a pooled connection, of a
// notifier's, of a version read's; competition_versions locked past the statement timeout; and
// for the third replica, whose connections go through a TCP proxy, a stall and a cut. Every answer
// is a success or the 503 problem+json with Retry-After; nothing acknowledged is lost; once the
// faults stop every replica answers what a fresh replica computes; no connection is left behind.
import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import { prng } from '../support/prng.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';
import { tempDir, type TempDir } from '../support/tempDir.js';
import { countingWriter, expectRefusal, C, expectSame, read, Readers, READS } from './pgReplicasKit.js';
import { setupReplicated, type Mixed } from './pgMixedWrites.js';

const LOAD_MS = 20_000;
/** REPLICAS_SEED (a number) replays the suite with other draws. */
const SEED = Number(process.env.REPLICAS_SEED ?? 0);
const POOL = 3;
/** A statement may run twice this (src/config.ts); a lock held longer cancels it. */
const TIMEOUT_MS = 500;
/** Reads that are not score reads, answered from the database under the same faults. */
const OTHER_READS = [
  C,
  `${C}/runs?limit=50`,
  `${C}/tasks`,
  `${C}/judge`,
  `${C}/metagraph`,
  `${C}/snapshots`,
  `${C}/weights/history`,
  `${C}/runs/export?format=csv`,
  `${C}/tasks/export`,
];

describe.runIf(TEST_ENGINE === 'postgres')('replicas on one PostgreSQL database under faults', () => {
  let tmp: TempDir;
  let dbPath: string;
  let url: string;
  let proxy: TcpProxy;
  let replicas: ServerProcess[];
  let mixed: Mixed;
  let admin: pg.Client;
  beforeAll(async () => {
    tmp = tempDir('replica-faults');
    dbPath = `${tmp.dir}/shared.db`;
    url = (await postgresDatabaseFor(dbPath)).url;
    const target = new URL(url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const env = { DATABASE_TIMEOUT_MS: String(TIMEOUT_MS), DATABASE_POOL_SIZE: String(POOL) };
    replicas = await Promise.all([
      startServer({ dbPath, env: { ...env, SCORING_INSTANCE_LABEL: 'r0' } }),
      startServer({ dbPath, env: { ...env, SCORING_INSTANCE_LABEL: 'r1' } }),
      startServer({ dbPath, env: { ...env, SCORING_INSTANCE_LABEL: 'r2', DATABASE_URL: proxy.urlFor(url) } }),
    ]);
    mixed = await setupReplicated(replicas[0]!);
    admin = new pg.Client({ connectionString: url, application_name: 'test-admin' });
    await admin.connect();
  }, 90_000);
  afterAll(async () => {
    await admin?.end();
    await stopAllServers();
    await proxy?.close();
    tmp?.remove();
  });

  /**
   * The servers' connections to this database by kind (`pool`, `listen`, `versions`: the second
   * word of each one's application_name, src/db/pg/applicationName.ts), and the names of the
   * notifiers' (one per process, each naming its label and pid).
   */
  async function connections(): Promise<{ kinds: Record<string, number>; listening: string[] }> {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT application_name AS name FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'swe-scoring %' ORDER BY 1`,
    );
    const kinds: Record<string, number> = {};
    for (const { name } of rows) kinds[name.split(' ')[1]!] = (kinds[name.split(' ')[1]!] ?? 0) + 1;
    return { kinds, listening: rows.map((r) => r.name).filter((name) => name.startsWith('swe-scoring listen ')) };
  }

  /** Ends one server connection of a kind, at random; false when there was none. */
  async function terminate(kind: 'pool' | 'notifier' | 'versions', rng: ReturnType<typeof prng>): Promise<boolean> {
    const named = { pool: 'pool', notifier: 'listen', versions: 'versions' }[kind];
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1`,
      [`swe-scoring ${named} %`],
    );
    if (rows.length === 0) return false;
    await admin.query('SELECT pg_terminate_backend($1)', [rng.pick(rows).pid]);
    return true;
  }

  it('no 500, nothing acknowledged lost, no stale replica and no connection left once the faults stop', async () => {
    const rng = prng(6403 + SEED);
    const readers = new Readers();
    expectSame(await readers.all(replicas), replicas, 'setup');
    const before = await connections();
    const memory = await Promise.all(replicas.map(rss));

    let stop = false;
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const writers = [0, 1].map((w) => countingWriter(prng(200 + w), replicas, `fw${w}`, () => stop, true));
    const mixedLoad = (async () => {
      while (!stop) {
        const op = await mixed.one(rng, rng.pick(replicas), 'fault-');
        count(op.status);
        if (op.status >= 500) expectRefusal({ ...op, etag: null }, `${op.kind}`);
      }
    })();
    const reads = (async () => {
      const rrng = prng(6404);
      while (!stop) {
        const path = rrng.pick([...READS, ...OTHER_READS]);
        const got = await read(rrng.pick(replicas), path);
        count(got.status);
        if (got.status >= 500) expectRefusal(got, path);
      }
    })();
    const faults: Record<string, number> = {};
    const faulting = (async () => {
      const frng = prng(6405 + SEED);
      const started = Date.now();
      while (Date.now() - started < LOAD_MS) {
        await new Promise((r) => setTimeout(r, frng.int(200, 700)));
        const kind = frng.pick(['pool', 'pool', 'notifier', 'versions', 'versions', 'lock', 'stall', 'cut'] as const);
        let done = true;
        if (kind === 'pool' || kind === 'notifier' || kind === 'versions') done = await terminate(kind, frng);
        else if (kind === 'lock') {
          // Every writer and version read waits on the table past the statement timeout.
          await admin.query('BEGIN');
          await admin.query('LOCK TABLE competition_versions IN ACCESS EXCLUSIVE MODE');
          await new Promise((r) => setTimeout(r, TIMEOUT_MS * 2 + 500));
          await admin.query('COMMIT');
        } else if (kind === 'stall') {
          // Half the time only the answers stall: a COMMIT reaches the server and its answer does
          // not come back (a 503 for a write that was stored; resent, its runs are duplicates).
          proxy.pause(frng.chance(0.5) ? 'both' : 'toClient');
          await new Promise((r) => setTimeout(r, frng.int(300, 1500)));
          await proxy.resume();
        } else {
          await proxy.cut();
          await new Promise((r) => setTimeout(r, frng.int(100, 800)));
          await proxy.resume();
        }
        if (done) faults[kind] = (faults[kind] ?? 0) + 1;
      }
    })();
    try {
      await faulting;
    } finally {
      stop = true;
    }
    const written = await Promise.all(writers);
    await Promise.all([mixedLoad, reads]);
    console.log(
      `faults ${JSON.stringify(faults)}; answers by status ${JSON.stringify(Object.fromEntries(statuses))}; ` +
        `writers ${JSON.stringify(written)}`,
    );
    expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);

    // The faults are over: every replica is ready again by itself, and answers as the others do,
    // at its first read (the Readers asked before, with the ETags they were given then).
    for (const r of replicas) await untilReady(r);
    expectSame(await readers.all(replicas), replicas, 'the faults');
    const fresh = await startServer({ dbPath });
    expectSame(await new Readers().all([...replicas, fresh]), [...replicas, fresh], 'a fresh replica');
    await mixed.expectStored(fresh);
    await fresh.stop();

    // The fresh replica's sessions end as its process closes them: PostgreSQL's backends exit
    // a moment after their client has gone.
    const bound = replicas.length * POOL;
    const host = hostname().split('.')[0]!;
    let after = await connections();
    const over = () =>
      (after.kinds.pool ?? 0) > bound ||
      (after.kinds.versions ?? 0) > replicas.length ||
      after.listening.length > replicas.length;
    for (let waited = 0; over() && waited < 5000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      after = await connections();
    }
    console.log(`connections before ${JSON.stringify(before.kinds)}, after ${JSON.stringify(after.kinds)}`);
    // Each replica: its pool, one version read connection, one notifier, named by its label and pid.
    expect(after.listening).toEqual(replicas.map((r, i) => `swe-scoring listen r${i} ${host}:${r.pid}`).sort());
    expect(after.kinds.pool ?? 0).toBeLessThanOrEqual(bound);
    expect(after.kinds.versions ?? 0).toBeLessThanOrEqual(replicas.length);
    const memoryAfter = await Promise.all(replicas.map(rss));
    console.log(`rss MB before ${memory.map(mb).join(', ')}, after ${memoryAfter.map(mb).join(', ')}`);
  }, 120_000);
});

async function untilReady(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await read(server, '/readyz')).status !== 200) {
    if (Date.now() > deadline) throw new Error(`:${server.port} not ready 20 s after the faults stopped`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The process's resident memory, bytes (/metrics). */
async function rss(server: ServerProcess): Promise<number> {
  const res = await fetch(`${server.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` },
  });
  const m = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(await res.text());
  return m ? Number(m[1]) : NaN;
}

const mb = (n: number) => (n / 2 ** 20).toFixed(0);
