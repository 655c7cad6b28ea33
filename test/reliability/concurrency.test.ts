// Concurrency: 8 validators post overlapping batches at once to one server process, sharing run
// ids: identical duplicates, and contested ids that each client sends with its own content. At
// the end every run id is stored once, the accepted counts add up to what is stored, every
// acknowledged run is stored exactly as its batch sent it, conflicts got a 409 naming a contested
// id, nothing got a 5xx, and the scores equal a fresh app's fed the stored runs.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { rowsDiff } from '../support/dbDump.js';
import { serverDatabase } from '../support/engine.js';
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
import { prng } from '../support/prng.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import type { Json } from '../support/json.js';

const SEED = 0xc0ffee08;
const CLIENTS = 8;
const BATCHES_PER_CLIENT = 25;
const ADMIN_TOKEN = 'concurrency-admin-token-91c4e';
const runsPath = `/v1/competitions/${COMPETITION}/runs`;

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

it('stores each run once under 8 concurrent clients sharing run ids', async () => {
  const tmp = tempDir('concurrency');
  const dbPath = join(tmp.dir, 'scoring.db');
  const server = await startServer({ dbPath, adminToken: ADMIN_TOKEN });
  await setupCompetition((m, p, body) => http(server.baseUrl, m, p, { token: ADMIN_TOKEN, body }));
  const keys: string[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    keys.push(
      (await http(server.baseUrl, 'POST', '/v1/validators', { token: ADMIN_TOKEN, body: { name: `client-${c}` } })).body
        .apiKey,
    );
  }

  // Shared ids: 700 with one content (identical duplicates across clients), 30 contested ids
  // whose content depends on the client (clients c and c+3 agree, others conflict).
  const rng = prng(SEED);
  const shared = Array.from({ length: 700 }, (_, i) => makeRun(rng, `shared-${i}`));
  const contested = Array.from({ length: 30 }, (_, i) => `contested-${i}`);
  const contestedRun = (id: string, client: number) =>
    makeRun(prng(SEED + Number(id.split('-')[1])), id, 1 + (client % 3));
  const batches: { client: number; runs: RunBody[] }[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    for (let b = 0; b < BATCHES_PER_CLIENT; b++) {
      const ids = new Set<number>();
      const size = rng.int(1, 150);
      while (ids.size < size) ids.add(rng.int(0, shared.length - 1));
      const runs = [...ids].map((i) => shared[i]!);
      if (rng.chance(0.35)) runs.splice(rng.int(0, runs.length), 0, contestedRun(rng.pick(contested), c));
      batches.push({ client: c, runs });
      if (rng.chance(0.15)) batches.push({ client: c, runs }); // an identical resend
    }
  }

  const results: { client: number; runs: RunBody[]; status: number; body: Json }[] = [];
  let fiveXX = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const mine = batches.filter((b) => b.client === c);
      // Two requests in flight per client: 16 at once.
      const lane = async (offset: number) => {
        for (let i = offset; i < mine.length; i += 2) {
          const res = await http(server.baseUrl, 'POST', runsPath, { token: keys[c], body: { runs: mine[i]!.runs } });
          if (res.status >= 500) fiveXX++;
          results.push({ ...mine[i]!, status: res.status, body: res.body });
        }
      };
      await Promise.all([lane(0), lane(1)]);
    }),
  );

  expect(fiveXX).toBe(0);
  expect(results.map((r) => r.status).filter((s) => s !== 200 && s !== 409)).toEqual([]);
  const ok = results.filter((r) => r.status === 200);
  const conflicts = results.filter((r) => r.status === 409);
  for (const r of ok) expect(r.body.accepted + r.body.duplicates).toBe(r.runs.length);

  // What the clients were told was stored, run by run: no two acknowledgements disagree.
  const acknowledged = new Map<string, RunBody>();
  for (const r of ok) {
    for (const run of r.runs) {
      const before = acknowledged.get(run.runId);
      if (before) expect(run, `run ${run.runId} acknowledged with two contents`).toEqual(before);
      acknowledged.set(run.runId, run);
    }
  }
  const storedRows = (await serverDatabase(dbPath).query('SELECT run_id, tokens_input FROM runs')) as {
    run_id: string;
    tokens_input: number | string | null;
  }[];
  const stored = {
    ids: storedRows.map((r) => r.run_id),
    tokens: new Map(storedRows.map((r) => [r.run_id, r.tokens_input === null ? null : Number(r.tokens_input)])),
  };
  const accepted = ok.reduce((n, r) => n + r.body.accepted, 0);
  expect(new Set(stored.ids).size).toBe(stored.ids.length);
  expect(accepted).toBe(stored.ids.length);
  expect(new Set(stored.ids)).toEqual(new Set(acknowledged.keys()));

  // Each 409 names a contested id that is stored with other content than the batch sent.
  for (const r of conflicts) {
    expect(r.body.status).toBe(409);
    const sent = r.runs.find((run) => run.runId.startsWith('contested-'))!;
    expect(sent, 'a batch without contested ids got a 409').toBeDefined();
    expect(r.body.detail).toContain(sent.runId);
    expect(stored.tokens.has(sent.runId)).toBe(true);
    expect(stored.tokens.get(sent.runId)).not.toBe((sent.tokens as { input: number }).input);
  }
  expect(conflicts.length).toBeGreaterThan(0);
  expect(ok.filter((r) => r.body.duplicates > 0).length).toBeGreaterThan(0);

  // The aggregates and scores equal a fresh app's fed exactly the acknowledged runs.
  const ref = await Reference.create();
  await ref.add([...acknowledged.values()]);
  for (const [table, omit] of COMPARED_TABLES) {
    const served = await serverDatabase(dbPath).rows(table, omit);
    expect(rowsDiff(served, await ref.rows(table, omit)), `table ${table}`).toBeNull();
  }
  for (const path of SCORE_PATHS)
    expect((await http(server.baseUrl, 'GET', path)).body, path).toEqual(await ref.get(path));
  await ref.close();
  await server.stop('SIGTERM');
  tmp.remove();
  console.log(
    `[concurrency] seed ${SEED.toString(16)}: ${CLIENTS} clients, requests tried ${results.length}, ` +
      `200 ${ok.length} (accepted ${accepted}, duplicates ${ok.reduce((n, r) => n + r.body.duplicates, 0)}), ` +
      `409 ${conflicts.length}, runs written ${stored.ids.length}, runs lost 0, 5xx seen ${fiveXX}`,
  );
}, 120_000);
