// What only the PostgreSQL store has: transactions on a pool (rollback, events after the commit, a
// competition's writers taking turns), shared scoring input loads, and `ready`.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/client.js';
import type { Store } from '../../../src/db/contract.js';
import { createRepos } from '../../../src/db/repos.js';
import type { WriteEvent } from '../../../src/db/events.js';
import { createPool } from '../../../src/db/pg/client.js';
import { migratePostgres } from '../../../src/db/pg/migrate.js';
import { createPgStore } from '../../../src/db/pg/store.js';
import type { TokenWeights } from '../../../src/scoring/types.js';
import { run, sweTask } from '../../support/enginePair.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../../support/postgres.js';

const server = await testPostgres('test/db/pgStore/transactions.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

describe.runIf(server.available)('PostgreSQL store: transactions', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  let store: Store;
  const w: TokenWeights = { input: 1, cachedInput: 0.1, output: 3 };

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_store_tx');
    await migratePostgres(scratch.url);
    pool = createPool(scratch.url, { max: 12 });
    store = createPgStore(pool);
  });
  afterAll(async () => {
    await store?.close();
    await scratch?.drop();
  });

  async function competition(id: string, tasks = ['t']) {
    await store.competitions.upsert(id, { name: id });
    await store.tasks.upsertMany(
      id,
      tasks.map((t) => sweTask(t)),
    );
  }

  it('a rolled-back transaction stores nothing and tells nothing', async () => {
    await competition('rb');
    const told: WriteEvent[] = [];
    const listener = (e: WriteEvent) => void told.push(e);
    store.listeners.add(listener);
    const err = await store
      .transaction(
        async (tx) => {
          await tx.runs.insertMany([run('rb', { runId: 'r1', taskId: 't' })], w);
          await tx.miners.setExcluded('rb', 'hk-1', true, 'x');
          await tx.audit.append({
            actor: { kind: 'admin', id: null },
            action: 'a',
            competitionId: 'rb',
            target: 't',
            summary: {},
          });
          // Inside, the transaction sees its writes; nothing was told yet.
          expect((await tx.runs.list('rb', { limit: 10 })).map((r) => r.runId)).toEqual(['r1']);
          expect((await tx.scoringInput.load('rb', w)).minerTasks).toHaveLength(1);
          expect(told).toEqual([]);
          throw new Error('changed my mind');
        },
        { competitionId: 'rb' },
      )
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe('changed my mind');
    expect(told).toEqual([]);
    expect(await store.runs.list('rb', { limit: 10 })).toEqual([]);
    expect(await store.miners.list('rb')).toEqual([]);
    expect(await store.audit.list({ competitionId: 'rb', limit: 10 })).toEqual([]);
    expect(await store.competitions.counts('rb')).toEqual({ tasks: 1, miners: 0, runs: 0 });
    expect([...(await store.scoringInput.load('rb', w)).minerTasks]).toEqual([]);
    // A savepoint rolls back alone; the outer transaction commits the rest.
    await store.transaction(async (tx) => {
      await tx.runs.insertMany([run('rb', { runId: 'kept', taskId: 't' })], w);
      await tx
        .transaction(async (inner) => {
          await inner.runs.insertMany([run('rb', { runId: 'dropped', taskId: 't', hotkey: 'hk-9' })], w);
          throw new Error('inner');
        })
        .catch(() => undefined);
    });
    expect((await store.runs.list('rb', { limit: 10 })).map((r) => r.runId)).toEqual(['kept']);
    expect(told).toEqual([{ competitionId: 'rb', kind: 'pair', pair: 't\u0000hk-1' }]);
    store.listeners.delete(listener);
  });

  it('events are told after the commit, in order, and a notification carries the version', async () => {
    await competition('ev', ['t1', 't2']);
    const listen = new pg.Client({ connectionString: scratch.url });
    await listen.connect();
    const notes: string[] = [];
    listen.on('notification', (m) => notes.push(m.payload ?? ''));
    await listen.query('LISTEN swe_scoring_writes');
    try {
      const told: WriteEvent[] = [];
      const listener = (e: WriteEvent) => void told.push(e);
      store.listeners.add(listener);
      let inside: WriteEvent[] = [];
      await store.transaction(
        async (tx) => {
          await tx.runs.insertMany(
            [
              run('ev', { runId: 'a', taskId: 't2', hotkey: 'm2' }),
              run('ev', { runId: 'b', taskId: 't1', hotkey: null, resolved: true }),
              run('ev', { runId: 'c', taskId: 't1', hotkey: 'm1' }),
            ],
            w,
          );
          await tx.miners.setExcluded('ev', 'm1', true, null);
          inside = [...told];
        },
        { competitionId: 'ev' },
      );
      expect(inside).toEqual([]);
      expect(told).toEqual([
        { competitionId: 'ev', kind: 'pair', pair: 't2\u0000m2' },
        { competitionId: 'ev', kind: 'tasks' },
        { competitionId: 'ev', kind: 'pair', pair: 't1\u0000m1' },
        { competitionId: 'ev', kind: 'miners' },
      ]);
      const { rows } = await pool.query<{ version: string }>(
        `SELECT version FROM competition_versions WHERE competition_id = 'ev'`,
      );
      await expect.poll(() => notes.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(notes[notes.length - 1]!)).toEqual({ competitionId: 'ev', version: Number(rows[0]!.version) });
      // The committed version is handed to onCommitted, before the events are told.
      const seen: unknown[] = [];
      const other = createPgStore(pool, {
        onCommitted: (competitionId, version) => seen.push([competitionId, version]),
      });
      other.listeners.add((e) => seen.push(e.kind));
      await other.miners.setExcluded('ev', 'm3', true, null);
      expect(seen).toEqual([['ev', Number(rows[0]!.version) + 1], 'miners']);
      store.listeners.delete(listener);
    } finally {
      await listen.end();
    }
  });

  it("a competition's transactions take turns: no lost update, sequence order is commit order", async () => {
    await competition('cc', ['t1', 't2']);
    const order: string[] = [];
    const N = 8;
    const batches = Array.from({ length: N }, (_, k) =>
      Array.from({ length: 50 }, (_, i) =>
        run('cc', {
          runId: `k${k}-${i}`,
          taskId: i % 2 ? 't1' : 't2',
          hotkey: i % 3 ? 'm1' : null,
          resolved: true,
          tokens: { input: 1000 + k, cachedInput: i, output: 7 },
        }),
      ),
    );
    await Promise.all(
      batches.map((batch, k) =>
        store.transaction(
          async (tx) => {
            order.push(`in ${k}`);
            await tx.runs.insertMany(batch, w);
            // Hold the turn a while: another writer of the competition must wait, not interleave.
            await new Promise((r) => setTimeout(r, 20));
            order.push(`out ${k}`);
          },
          { competitionId: 'cc' },
        ),
      ),
    );
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i + 1]!.slice(4)).toBe(order[i]!.slice(3));
    }
    // Each batch's numbers form one block, and the blocks follow the order of the turns.
    const runs = await store.runs.list('cc', { limit: 10_000 });
    const blocks = [...new Set(runs.map((r) => r.runId.split('-')[0]!))];
    expect(blocks).toEqual(order.filter((o) => o.startsWith('in')).map((o) => `k${o.slice(3)}`));
    // Exact sums, against SQLite given the same batches in the same order.
    const db = openDatabase(':memory:');
    const sq = createRepos(db);
    sq.competitions.upsert('cc', { name: 'cc' });
    sq.tasks.upsertMany('cc', [sweTask('t1'), sweTask('t2')]);
    for (const b of blocks) sq.runs.insertMany(batches[Number(b.slice(1))]!, w);
    expect(await store.scoringInput.load('cc', w)).toEqual(sq.scoringInput.load('cc', w));
    expect(await store.competitions.counts('cc')).toEqual(sq.competitions.counts('cc'));
  });

  it('concurrent scoring input loads share one read; a load after a commit sees it', async () => {
    await competition('si', ['t1']);
    await store.runs.insertMany([run('si', { runId: 'a', taskId: 't1', hotkey: 'm1' })], w);
    const [x, y] = await Promise.all([store.scoringInput.load('si', w), store.scoringInput.load('si', w)]);
    expect(y).toBe(x);
    const first = store.scoringInput.load('si', w);
    await store.runs.insertMany([run('si', { runId: 'b', taskId: 't1', hotkey: 'm2' })], w);
    // Started after the commit was told: not the read in flight, which may predate it.
    const second = store.scoringInput.load('si', w);
    expect((await first).minerTasks.length).toBeGreaterThanOrEqual(1);
    expect([...(await second).minerTasks].map((m) => m.hotkey)).toEqual(['m1', 'm2']);
    expect([...(await store.scoringInput.load('si', w)).minerTasks].map((m) => [m.hotkey, m.runs])).toEqual([
      ['m1', 1],
      ['m2', 1],
    ]);
  });

  it('ready: true on a migrated database, false (not thrown) where none answers', async () => {
    expect(await store.ready()).toBe(true);
    const url = new URL(scratch.url);
    url.pathname = '/swe_test_no_such_database';
    const nowhere = createPgStore(createPool(url.toString(), { connectTimeoutMs: 2000 }));
    expect(await nowhere.ready()).toBe(false);
    await nowhere.close();
  });
});
