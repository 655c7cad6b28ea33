// Two server processes on one PostgreSQL database (src/db/pg/open.ts, src/db/pg/scoringInput.ts):
// a process that hears of another's write reads again only the (task, miner) pairs that write
// stamped (pair_versions), and its scoring input still equals the tables. Random writes on either
// store (runs added, runs deleted down to no run of a pair, every aggregate rebuilt under new token
// weights, and writes by a server that does not stamp, as one from before migration 0010 would
// make) are followed by the other store's load, compared with miner_tasks read directly.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/contract.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import type { MinerTaskSummary, TokenWeights } from '../../src/scoring/types.js';
import { minerRun, sweCompetition, unstampedWrite } from './peerKit.js';
import { prng } from '../support/prng.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgPeerCatchUp.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

const C = 'peers';
const TASKS = ['t1', 't2', 't3', 't4', 't5'];
const MINERS = ['m1', 'm2', 'm3', 'm4'];

describe.runIf(server.available)("a peer's writes, caught up by their stamps", () => {
  let scratch: ScratchDatabase;
  let a: Store;
  let b: Store;
  let direct: pg.Client;
  let w: TokenWeights = { input: 1, cachedInput: 0.1, output: 3 };

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_peer_catch_up');
    await migratePostgres(scratch.url);
    a = await openPostgresStore(scratch.url, { max: 3 });
    b = await openPostgresStore(scratch.url, { max: 3 });
    direct = new pg.Client({ connectionString: scratch.url });
    await direct.connect();
    await sweCompetition(a, C, TASKS);
  });
  afterAll(async () => {
    await direct?.end();
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  const run = (id: string, taskId: string, hotkey: string, resolved: boolean, tokens: number) =>
    minerRun(C, id, taskId, hotkey, resolved, { input: tokens, cachedInput: 0, output: tokens });

  /** The pairs as a fresh read of the table gives them, in one order. */
  async function table(): Promise<string[]> {
    const { rows } = await direct.query<{ task_id: string; hotkey: string; runs: number; resolved: number }>(
      `SELECT task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum FROM miner_tasks
        WHERE competition_id = $1 ORDER BY task_id COLLATE "C", hotkey COLLATE "C"`,
      [C],
    );
    return rows.map((r) => `${r.task_id}/${r.hotkey}: ${r.runs} runs, ${r.resolved} resolved`);
  }
  const summary = (entries: Iterable<MinerTaskSummary>) =>
    [...entries]
      .map((e) => `${e.taskId}/${e.hotkey}: ${e.runs} runs, ${e.resolved} resolved`)
      .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  async function loaded(s: Store): Promise<MinerTaskSummary[]> {
    await s.capabilities.freshness!.sync(C);
    return [...(await s.scoringInput.load(C, w)).minerTasks];
  }

  it('reads only the pairs a peer wrote, and agrees with the table through random writes on both stores', async () => {
    const rng = prng(41);
    const stored: { id: string; store: 'a' | 'b' }[] = [];
    let n = 0;
    let kept = 0;
    let incremental = 0;
    let singles = 0;
    let before = await loaded(b);
    await loaded(a);
    for (let step = 0; step < 60; step++) {
      const writer = rng.chance(0.5) ? a : b;
      const roll = rng.next();
      let peerWroteOnePair = false;
      if (roll < 0.6 || stored.length === 0) {
        const count = rng.int(1, 3);
        const runs = Array.from({ length: count }, () =>
          run(`r${++n}`, rng.pick(TASKS), rng.pick(MINERS), rng.chance(0.5), rng.int(1, 50)),
        );
        await writer.transaction((tx) => tx.runs.insertMany(runs, w), { competitionId: C });
        for (const r of runs) stored.push({ id: r.runId, store: writer === a ? 'a' : 'b' });
        peerWroteOnePair = writer === a && count === 1;
      } else if (roll < 0.85) {
        // A deletion: a pair whose last run goes is removed from miner_tasks.
        const [gone] = stored.splice(rng.below(stored.length), 1);
        const storedRun = await writer.runs.get(C, gone!.id);
        await writer.transaction((tx) => tx.runs.delete(storedRun!, w), { competitionId: C });
      } else if (roll < 0.92) {
        // New token weights: every aggregate rebuilt, the stamps restarted.
        w = { ...w, output: rng.int(1, 5) };
        await writer.transaction((tx) => tx.aggregates.rebuild(C, w), { competitionId: C });
      } else {
        // A server that does not stamp: the version moves, a pair changes, no pair_versions row.
        await unstampedWrite(direct, C);
      }
      const expected = await table();
      const after = await loaded(b);
      expect(summary(after), `b after step ${step}`).toEqual(expected);
      expect(summary(await loaded(a)), `a after step ${step}`).toEqual(expected);
      if (peerWroteOnePair) {
        // One pair changed by the peer: every other pair is the very entry b held before.
        singles++;
        const held = new Set(before);
        const same = after.filter((e) => held.has(e)).length;
        if (same >= after.length - 1) incremental++;
        kept += same;
      }
      before = after;
    }
    // Every single-pair peer write was caught up in place (a whole read makes every entry anew).
    expect(singles).toBeGreaterThan(3);
    expect(incremental).toBe(singles);
    expect(kept).toBeGreaterThan(0);
  }, 60_000);
});
