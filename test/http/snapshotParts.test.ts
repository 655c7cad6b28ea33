// The snapshot list, the weights history and a miner's history answer from the parts kept beside
// each snapshot document (src/db/snapshots.ts SnapshotParts), never from the documents: ~100 KB
// each at 256 miners, which these public reads used to load and parse per snapshot per request.
// And the rows stored before those parts existed get them from the migration, in SQL, answering
// as the documents did.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { postgresDatabaseFor } from '../support/engine.js';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-snapshot-parts-'));
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hk = (n: number) => encodeSs58(new Uint8Array(32).fill(n));
const MINERS = [1, 2, 3, 4].map(hk);
const READS = [
  '/v1/competitions/c/snapshots?limit=1000',
  '/v1/competitions/c/snapshots?limit=2&cursor=1',
  '/v1/competitions/c/weights/history?limit=1000',
  '/v1/competitions/c/weights/history?limit=1&cursor=2',
  ...[...MINERS, '123', '__proto__', hk(9)].map((h) => `/v1/competitions/c/miners/${h}/history?limit=1000`),
  `/v1/competitions/c/miners/${MINERS[0]}/history?limit=2&cursor=1`,
];

/** Three snapshots of a competition with a metagraph (their documents carry `chain`), and a note with some Unicode. */
async function seed(app: TestApp) {
  await seedCompetition(app, 'c', { name: 'Parts', burnRatio: 0.1 });
  const call = (method: 'PUT' | 'POST', path: string, payload: object) =>
    app.call({ method, url: `/v1/competitions/c/${path}`, headers: admin, payload });
  await call('PUT', 'tasks', {
    tasks: [
      { id: 'a', type: 'swebench_verified' },
      { id: 'b', type: 'swebench_verified' },
    ],
  });
  const neurons = MINERS.map((hotkey, i) => ({ uid: i + 1, hotkey }));
  expect((await call('PUT', 'metagraph', { netuid: 1, block: 1, neurons, burnUid: 0 })).status).toBe(200);
  let n = 0;
  const run = (taskId: string, hotkey: string | null, resolved: boolean) => ({
    runId: `r${++n}`,
    taskId,
    kind: hotkey === null ? 'baseline' : 'miner',
    ...(hotkey === null ? {} : { minerHotkey: hotkey }),
    resolved,
    tokens: { input: 1000 + n * 7, output: 100 + n },
  });
  await call('POST', 'runs', { runs: [run('a', null, true), run('b', null, false), run('a', MINERS[0]!, true)] });
  expect((await call('POST', 'snapshots', { note: 'first ü "q" \\' })).status).toBe(201);
  await call('POST', 'runs', {
    runs: [run('a', MINERS[1]!, true), run('b', MINERS[1]!, true), run('b', MINERS[2]!, false)],
  });
  expect((await call('POST', 'snapshots', {})).status).toBe(201);
  // Hotkeys that an object keyed by hotkey would order first ('123') or take as its prototype.
  await call('POST', 'runs', {
    runs: [run('a', MINERS[3]!, true), run('b', MINERS[0]!, true), run('a', '123', true), run('b', '__proto__', true)],
  });
  expect((await call('POST', 'snapshots', { stages: ['evaluation'] })).status).toBe(201);
}

/** Each read's status and exact bytes. */
async function answers(app: TestApp): Promise<string[]> {
  const out: string[] = [];
  for (const url of READS) {
    const res = await app.app.inject({ method: 'GET', url });
    out.push(`${res.statusCode} ${res.body}`);
  }
  return out;
}

type Doc = {
  seq: number;
  takenAt: string;
  leaderboard: {
    miners: {
      hotkey: string;
      rank: number | null;
      normalizedScore: number | null;
      incentive: { finalWeight: number };
    }[];
  };
  weights: { finalWeights: Record<string, number>; burnWeight: number };
  chain?: unknown;
};

/**
 * The answers as the server gave them when it read the documents (before migration 0010): each
 * list item the document without leaderboard, weights and chain; each history entry picked from
 * the document's leaderboard and weights.
 */
async function fromDocuments(app: TestApp): Promise<unknown[]> {
  const docs: Doc[] = [];
  for (let seq = 1; seq <= 3; seq++)
    docs.push(JSON.parse((await app.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${seq}` })).body));
  const page = (url: string) => {
    const q = new URL(url, 'http://x').searchParams;
    const after = Number(q.get('cursor') ?? 0);
    const limit = Number(q.get('limit'));
    const rows = docs.filter((d) => d.seq > after).slice(0, limit);
    return { rows, nextCursor: rows.length === limit ? String(rows.at(-1)!.seq) : null };
  };
  return READS.map((url) => {
    const { rows, nextCursor } = page(url);
    if (url.includes('/snapshots?')) {
      const snapshots = rows.map(({ leaderboard: _l, weights: _w, chain: _c, ...rest }) => rest);
      return { snapshots, nextCursor };
    }
    if (url.includes('/weights/history')) {
      const history = rows.map((d) => ({
        seq: d.seq,
        takenAt: d.takenAt,
        finalWeights: d.weights.finalWeights,
        burnWeight: d.weights.burnWeight,
      }));
      return { competitionId: 'c', history, nextCursor };
    }
    const hotkey = url.split('/')[5]!;
    const history = rows.map((d) => {
      const m = d.leaderboard.miners.find((x) => x.hotkey === hotkey);
      return {
        seq: d.seq,
        takenAt: d.takenAt,
        rank: m?.rank ?? null,
        normalizedScore: m?.normalizedScore ?? null,
        finalWeight: m?.incentive.finalWeight ?? 0,
      };
    });
    return { competitionId: 'c', hotkey, history, nextCursor };
  });
}

it('the list and the histories read no snapshot document: they answer the same with every document unreadable', async () => {
  const path = join(dir, 'unread.db');
  t = await testApp({ path });
  await seed(t);
  const before = await answers(t);
  expect(before.every((a) => a.startsWith('200 '))).toBe(true);
  // The odd hotkeys are on the last leaderboard.
  for (const odd of ['123', '__proto__']) {
    const { history } = JSON.parse(
      before[READS.indexOf(`/v1/competitions/c/miners/${odd}/history?limit=1000`)]!.slice(4),
    );
    expect(history.at(-1).rank, odd).not.toBeNull();
  }
  // The answers are the documents' (the documents have a leaderboard, weights and weights on chain).
  expect(before.map((a) => JSON.parse(a.slice(4)))).toEqual(await fromDocuments(t));
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/snapshots/1' })).body.chain).toBeDefined();
  await t.close();
  // A server started afresh (nothing of the snapshots in memory), then every stored document made
  // unparsable: the reads answer the same bytes.
  t = await testApp({ path });
  await t.query(`UPDATE snapshots SET document = '{"leaderboard": not json'`);
  expect(await answers(t)).toEqual(before);
  // The document itself is still what GET …/snapshots/{seq} serves (as stored).
  expect((await t.app.inject({ method: 'GET', url: '/v1/competitions/c/snapshots/2' })).body).toBe(
    '{"leaderboard": not json',
  );
});

it('rows stored before migration 0010 (PostgreSQL 0012) get their parts from it, in SQL: the reads answer as the documents did', async () => {
  const path = join(dir, 'upgraded.db');
  t = await testApp({ path });
  await seed(t);
  const expected = await fromDocuments(t);
  const current = await answers(t);
  // Back to the schema before the migration: the columns gone, the migration not applied.
  const last = { sqlite: '__drizzle_migrations', postgres: 'drizzle.__drizzle_migrations' }[t.engine];
  await t.query(`DELETE FROM ${last} WHERE created_at = (SELECT max(created_at) FROM ${last})`);
  for (const column of ['summary', 'final_weights', 'burn_weight', 'miners'])
    await t.query(`ALTER TABLE snapshots DROP COLUMN ${column}`);
  await t.close();
  // Migrated at the next start (SQLite: on open; PostgreSQL: by the migrations step before the server).
  if (TEST_ENGINE === 'postgres') await migratePostgres((await postgresDatabaseFor(path)).url);
  t = await testApp({ path });
  expect((await t.query('SELECT count(*) AS n FROM snapshots WHERE summary IS NULL OR miners IS NULL'))[0]).toEqual({
    n: t.engine === 'sqlite' ? 0 : '0',
  });
  const upgraded = await answers(t);
  expect(upgraded).toEqual(current);
  expect(upgraded.map((a) => JSON.parse(a.slice(4)))).toEqual(expected);
});
