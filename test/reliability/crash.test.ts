// Crash safety: a client ingests batches while the server is killed with SIGKILL at seeded
// moments, 20 times, restarting on the same database file. After every restart: each
// acknowledged batch is stored in full, each batch in flight at the kill is stored fully or not
// at all, and the stored runs, aggregates and scores equal those of a fresh in-memory app fed
// exactly the acknowledged runs (plus the in-flight batches found stored).
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { rowsDiff } from '../support/dbDump.js';
import { serverDatabase, TEST_ENGINE } from '../support/engine.js';
import {
  COMPARED_TABLES,
  COMPETITION,
  Reference,
  SCORE_PATHS,
  makeRun,
  setupCompetition,
  type RunBody,
} from './fixture.js';
import { http } from '../support/http.js';
import { prng, type Rng } from '../support/prng.js';
import { startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

const SEED = 0x5eed0006;
const ROUNDS = 20;
const ADMIN_TOKEN = 'crash-admin-token-7f3a9c2e5b1d';
const runsPath = `/v1/competitions/${COMPETITION}/runs`;

interface Stats {
  crashes: number;
  requests: number;
  acknowledged: number;
  inFlight: number;
  inFlightStored: number;
  retried: number;
  lost: number;
  partial: number;
  fiveXX: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two clients post batches until the server is killed; returns what was acknowledged and what was in flight. */
async function ingestUntilKilled(server: ServerProcess, key: string, rng: Rng, nextId: () => string, stats: Stats) {
  const killAfter = rng.chance(0.15) ? rng.int(0, 30) : rng.int(80, 600);
  let killed = false;
  const acked: RunBody[][] = [];
  const inFlight: RunBody[][] = [];
  const client = async () => {
    while (!killed) {
      const size = rng.chance(0.08) ? rng.int(500, 2000) : rng.int(1, 120);
      const runs = Array.from({ length: size }, () => makeRun(rng, nextId()));
      stats.requests++;
      let res;
      try {
        res = await http(server.baseUrl, 'POST', runsPath, { token: key, body: { runs } });
      } catch (err) {
        if (!killed) throw err;
        inFlight.push(runs);
        continue;
      }
      if (res.status >= 500) stats.fiveXX++;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ accepted: size, duplicates: 0 });
      acked.push(runs);
    }
  };
  const killer = sleep(killAfter).then(async () => {
    killed = true;
    await server.stop('SIGKILL');
  });
  await Promise.all([client(), client(), killer]);
  expect((await server.exited).signal).toBe('SIGKILL');
  return { acked, inFlight };
}

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

it(`keeps every acknowledged batch and no partial batch across ${ROUNDS} SIGKILLs`, async () => {
  const started = Date.now();
  const tmp = tempDir('crash');
  const dbPath = join(tmp.dir, 'scoring.db');
  const rng = prng(SEED);
  const ref = await Reference.create();
  const stats: Stats = {
    crashes: 0,
    requests: 0,
    acknowledged: 0,
    inFlight: 0,
    inFlightStored: 0,
    retried: 0,
    lost: 0,
    partial: 0,
    fiveXX: 0,
  };
  let server = await startServer({ dbPath, adminToken: ADMIN_TOKEN });
  await setupCompetition((m, p, body) => http(server.baseUrl, m, p, { token: ADMIN_TOKEN, body }));
  const key = (
    await http(server.baseUrl, 'POST', '/v1/validators', { token: ADMIN_TOKEN, body: { name: 'crash-client' } })
  ).body.apiKey as string;
  const timing = { restart: 0, verify: 0 };
  let counter = 0;
  const nextId = () => `run-${counter++}`;
  const ackedIds: string[] = [];

  for (let round = 1; round <= ROUNDS; round++) {
    const { acked, inFlight } = await ingestUntilKilled(server, key, rng, nextId, stats);
    stats.crashes++;
    const t0 = Date.now();
    server = await startServer({ dbPath, adminToken: ADMIN_TOKEN });
    timing.restart += Date.now() - t0;
    const t1 = Date.now();
    // Each stored run's sequence number: the order in which the server committed the batches.
    const stored = new Map(
      (
        (await serverDatabase(dbPath).query('SELECT run_id, seq FROM runs')) as {
          run_id: string;
          seq: number | string;
        }[]
      ).map((r) => [r.run_id, Number(r.seq)]),
    );

    for (const batch of acked) ackedIds.push(...batch.map((r) => r.runId));
    stats.acknowledged += acked.reduce((n, b) => n + b.length, 0);
    const lost = ackedIds.filter((id) => !stored.has(id));
    stats.lost += lost.length;
    expect(lost, `round ${round}: acknowledged runs missing after restart`).toEqual([]);

    const absent: RunBody[][] = [];
    for (const batch of inFlight) {
      stats.inFlight++;
      const present = batch.filter((r) => stored.has(r.runId)).length;
      if (present !== 0 && present !== batch.length) stats.partial++;
      expect(
        present === 0 || present === batch.length,
        `round ${round}: batch stored in part (${present}/${batch.length})`,
      ).toBe(true);
      if (present === batch.length) {
        stats.inFlightStored++;
        ackedIds.push(...batch.map((r) => r.runId));
        acked.push(batch);
      } else absent.push(batch);
    }
    // The reference takes the batches in the server's commit order: two connections' answers can
    // reach the clients in the other order (a client busy for a moment reads both sockets at once).
    acked.sort((a, b) => stored.get(a[0]!.runId)! - stored.get(b[0]!.runId)!);
    await ref.add(acked.flat());
    expect(stored.size, `round ${round}: runs stored beyond the acknowledged and in-flight ones`).toBe(ackedIds.length);

    // The stored rows, the aggregates kept beside them and every score read equal the reference.
    for (const [table, omit] of COMPARED_TABLES) {
      const served = await serverDatabase(dbPath).rows(table, omit);
      expect(rowsDiff(served, await ref.rows(table, omit)), `round ${round}: table ${table}`).toBeNull();
    }
    for (const path of SCORE_PATHS) {
      const res = await http(server.baseUrl, 'GET', path);
      if (res.status >= 500) stats.fiveXX++;
      expect(res.body, `round ${round}: ${path}`).toEqual(await ref.get(path));
    }
    for (const id of [ackedIds[0], ackedIds[ackedIds.length - 1]].filter((x): x is string => x !== undefined)) {
      // On PostgreSQL a crashed batch's sequence numbers stay used (COMPARED_TABLES): compare seq on SQLite only.
      const { createdAt: _c, validatorId: _v, ...got } = (await http(server.baseUrl, 'GET', `${runsPath}/${id}`)).body;
      const { createdAt: _c2, validatorId: _v2, ...want } = await ref.get(`${runsPath}/${id}`);
      if (TEST_ENGINE === 'postgres') {
        delete (got as { seq?: number }).seq;
        delete (want as { seq?: number }).seq;
      }
      expect(got, `round ${round}: GET run ${id}`).toEqual(want);
    }

    timing.verify += Date.now() - t1;
    // A client retries what it did not see acknowledged: absent batches are stored now, and a
    // batch that did land is reported as duplicates, changing nothing.
    for (const batch of absent) {
      const res = await http(server.baseUrl, 'POST', runsPath, { token: key, body: { runs: batch } });
      expect(res.body).toEqual({ accepted: batch.length, duplicates: 0 });
      stats.retried++;
      ackedIds.push(...batch.map((r) => r.runId));
      await ref.add(batch);
    }
    const landed = inFlight.find((b) => stored.has(b[0]!.runId));
    if (landed) {
      const res = await http(server.baseUrl, 'POST', runsPath, { token: key, body: { runs: landed } });
      expect(res.body).toEqual({ accepted: 0, duplicates: landed.length });
    }
  }

  const [{ n: runsWritten }] = (await serverDatabase(dbPath).query('SELECT count(*) AS n FROM runs')).map((r) => ({
    n: Number(r.n),
  })) as [{ n: number }];
  expect(runsWritten).toBe(ackedIds.length);
  await server.stop('SIGTERM');
  await ref.close();
  tmp.remove();
  expect(stats.crashes).toBe(ROUNDS);
  expect(stats.fiveXX).toBe(0);
  console.log(
    `[crash] seed ${SEED.toString(16)}: crashes survived ${stats.crashes}, requests tried ${stats.requests}, ` +
      `runs acknowledged ${stats.acknowledged}, batches in flight at a kill ${stats.inFlight} ` +
      `(stored whole ${stats.inFlightStored}, absent and retried ${stats.retried}, partial ${stats.partial}), ` +
      `runs written ${runsWritten}, runs lost ${stats.lost}, 5xx seen ${stats.fiveXX}, restarts ${timing.restart} ms, checks ${timing.verify} ms, total ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}, 180_000);
