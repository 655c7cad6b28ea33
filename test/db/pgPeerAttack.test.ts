// Attacks on the stamp catch-up (src/db/pg/scoringInput.ts, src/db/pg/store.ts stampPairs): after
// each sequence, every store's scoring input (after freshness.sync) must equal what a freshly
// opened store loads.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/db/contract.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import type { TokenWeights } from '../../src/scoring/types.js';
import { computeScores } from '../../src/services/scores/compute.js';
import { minerRun, sweCompetition, unstampedWrite } from './peerKit.js';
import { prng } from '../support/prng.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgPeerAttack.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

const TASKS = ['t1', 't2', 't3', 't4', 't5'];
const MINERS = ['m1', 'm2', 'm3', 'm4'];
const W: TokenWeights = { input: 1, cachedInput: 0.1, output: 3 };

describe.runIf(server.available)('attacks on the stamp catch-up', () => {
  let scratch: ScratchDatabase;
  let a: Store;
  let b: Store;
  let direct: pg.Client;
  const weights = new Map<string, TokenWeights>();
  const w = (c: string) => weights.get(c) ?? W;

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_peer_attack');
    await migratePostgres(scratch.url);
    a = await openPostgresStore(scratch.url, { max: 4 });
    b = await openPostgresStore(scratch.url, { max: 4 });
    direct = new pg.Client({ connectionString: scratch.url });
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.end();
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  const competition = (C: string) => sweCompetition(a, C, TASKS, W);

  const run = (
    C: string,
    id: string,
    taskId: string,
    hotkey: string,
    resolved: boolean,
    tokens: number,
    validatorId: string | null = null,
  ) =>
    minerRun(
      C,
      id,
      taskId,
      hotkey,
      resolved,
      { input: tokens, cachedInput: (tokens * 7) % 13, output: tokens },
      validatorId,
    );

  const canon = (input: { tasks: unknown[]; miners: unknown[]; minerTasks: Iterable<unknown> }) => ({
    tasks: input.tasks,
    miners: input.miners,
    minerTasks: [...input.minerTasks].map((e) => JSON.stringify(e)).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
  });

  async function loaded(s: Store, C: string) {
    await s.capabilities.freshness!.sync(C);
    return canon(await s.scoringInput.load(C, w(C)));
  }
  async function fresh(C: string) {
    const f = await openPostgresStore(scratch.url, { max: 2 });
    try {
      return await loaded(f, C);
    } finally {
      await f.close();
    }
  }
  async function agree(label: string, ...cs: string[]) {
    for (const C of cs) {
      const want = await fresh(C);
      expect(await loaded(b, C), `b ${label} ${C}`).toEqual(want);
      expect(await loaded(a, C), `a ${label} ${C}`).toEqual(want);
    }
  }

  it('a savepoint that rolls back (pairs, and a second competition bumped inside it)', async () => {
    const C = 'sp1';
    const D = 'sp2';
    await competition(C);
    await competition(D);
    await a.transaction((tx) => tx.runs.insertMany([run(C, 'sp-0', 't1', 'm1', true, 5)], W), { competitionId: C });
    await agree('start', C, D);
    await a.transaction(
      async (tx) => {
        await tx.runs.insertMany([run(C, 'sp-1', 't2', 'm1', true, 5)], W);
        await tx
          .transaction(
            async (inner) => {
              await inner.runs.insertMany([run(D, 'sp-2', 't1', 'm2', true, 7)], W);
              await inner.runs.insertMany([run(C, 'sp-3', 't3', 'm3', false, 7)], W);
              throw new Error('roll back');
            },
            { competitionId: D },
          )
          .catch(() => undefined);
        // D again after its savepoint's bump rolled back.
        await tx.runs.insertMany([run(D, 'sp-4', 't4', 'm4', true, 9)], W);
      },
      { competitionId: C },
    );
    await agree('after the savepoint', C, D);
    // A savepoint released, then the whole transaction fails.
    await b
      .transaction(
        async (tx) => {
          await tx.transaction(async (inner) => inner.runs.insertMany([run(C, 'sp-5', 't5', 'm2', true, 1)], W));
          throw new Error('outer fails');
        },
        { competitionId: C },
      )
      .catch(() => undefined);
    await a.transaction((tx) => tx.runs.insertMany([run(C, 'sp-6', 't5', 'm4', true, 1)], W), { competitionId: C });
    await agree('after the outer rollback', C, D);
  }, 30_000);

  it('one transaction writing two competitions, both ways, from both stores', async () => {
    const C = 'two1';
    const D = 'two2';
    await competition(C);
    await competition(D);
    await agree('start', C, D);
    const rng = prng(7);
    let n = 0;
    for (let step = 0; step < 12; step++) {
      const writer = rng.chance(0.5) ? a : b;
      const [x, y] = rng.chance(0.5) ? [C, D] : [D, C];
      await writer.transaction(
        async (tx) => {
          await tx.runs.insertMany([run(x, `two-${++n}`, rng.pick(TASKS), rng.pick(MINERS), rng.chance(0.5), 3)], W);
          await tx.runs.insertMany([run(y, `two-${++n}`, rng.pick(TASKS), rng.pick(MINERS), rng.chance(0.5), 4)], W);
        },
        rng.chance(0.5) ? { competitionId: x } : undefined,
      );
      await agree(`step ${step}`, C, D);
    }
  }, 60_000);

  it('a run deleted and a pair re-created, in one transaction and across transactions', async () => {
    const C = 'del';
    await competition(C);
    await a.transaction((tx) => tx.runs.insertMany([run(C, 'd-1', 't1', 'm1', true, 5)], W), { competitionId: C });
    await agree('start', C);
    const stored = (await a.runs.get(C, 'd-1'))!;
    // Removed and re-created with other numbers in one transaction.
    await a.transaction(
      async (tx) => {
        await tx.runs.delete(stored, W);
        await tx.runs.insertMany([run(C, 'd-2', 't1', 'm1', false, 9)], W);
      },
      { competitionId: C },
    );
    await agree('re-created in one', C);
    const s2 = (await b.runs.get(C, 'd-2'))!;
    await b.transaction((tx) => tx.runs.delete(s2, W), { competitionId: C });
    await agree('removed', C);
    await a.transaction((tx) => tx.runs.insertMany([run(C, 'd-3', 't1', 'm1', true, 5)], W), { competitionId: C });
    await agree('re-created', C);
    // Re-created with the very row it had before (put keeps an unchanged entry).
    const s3 = (await a.runs.get(C, 'd-3'))!;
    await a.transaction((tx) => tx.runs.delete(s3, W), { competitionId: C });
    await b.transaction((tx) => tx.runs.insertMany([run(C, 'd-4', 't1', 'm1', true, 5)], W), { competitionId: C });
    await agree('same row again', C);
  }, 30_000);

  it('validator exclusion, judge changes and weight changes rebuild, mixed with pair writes', async () => {
    const C = 'reb';
    await competition(C);
    const { validator } = await a.validators.create('v1');
    const rng = prng(11);
    let n = 0;
    let excluded = false;
    await agree('start', C);
    for (let step = 0; step < 25; step++) {
      const writer = rng.chance(0.5) ? a : b;
      const roll = rng.next();
      if (roll < 0.55) {
        const runs = Array.from({ length: rng.int(1, 3) }, () =>
          run(
            C,
            `reb-${++n}`,
            rng.pick(TASKS),
            rng.pick(MINERS),
            rng.chance(0.5),
            rng.int(1, 9),
            rng.chance(0.5) ? validator.id : null,
          ),
        );
        await writer.transaction(
          (tx) => tx.runs.insertMany(runs, w(C), excluded ? new Set([validator.id]) : new Set()),
          {
            competitionId: C,
          },
        );
      } else if (roll < 0.75) {
        excluded = !excluded;
        await writer.transaction(
          async (tx) => {
            await tx.validators.setExcluded(C, validator.id, excluded, null);
            await tx.aggregates.rebuild(C, w(C));
          },
          { competitionId: C },
        );
      } else if (roll < 0.87) {
        weights.set(C, { ...w(C), output: rng.int(1, 5) });
        await writer.transaction(
          (tx) => tx.competitions.upsert(C, { name: C, tokenWeights: w(C) }).then(() => undefined),
          { competitionId: C },
        );
      } else {
        await writer.transaction(
          (tx) => tx.judges.record(C, JSON.stringify({ step }), `digest-${step}`, w(C)).then(() => undefined),
          { competitionId: C },
        );
      }
      await agree(`step ${step}`, C);
    }
  }, 120_000);

  it('writes by raw SQL as a server without stamps, including the first write of a competition', async () => {
    const C = 'raw';
    await agree('nothing yet', C);
    // An old server creates the competition and its first pair (bumps version only).
    await direct.query('BEGIN');
    await direct.query(
      `INSERT INTO competition_versions (competition_id, version) VALUES ($1, 1)
       ON CONFLICT (competition_id) DO UPDATE SET version = competition_versions.version + 1`,
      [C],
    );
    await direct.query(
      `INSERT INTO competitions (id, name, weight_input, weight_cached_input, weight_output, final_stages) VALUES ($1, $1, 1, 0.1, 3, '["evaluation"]')`,
      [C],
    );
    await direct.query(
      `INSERT INTO tasks (competition_id, id, type, stage) SELECT $1, t, 'swebench_verified', 'evaluation' FROM unnest($2::text[]) t`,
      [C, TASKS],
    );
    await direct.query(
      `INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
       VALUES ($1, 't1', 'm1', 1, 1, 1, 5, 0, 5)`,
      [C],
    );
    await direct.query('COMMIT');
    await agree('old server created', C);
    await a.transaction((tx) => tx.runs.insertMany([run(C, 'raw-1', 't2', 'm2', true, 5)], W), { competitionId: C });
    await agree('new write', C);
    for (let i = 0; i < 3; i++) {
      await direct.query('BEGIN');
      await direct.query('UPDATE competition_versions SET version = version + 1 WHERE competition_id = $1', [C]);
      await direct.query(
        `UPDATE miner_tasks SET runs = runs + 1 WHERE competition_id = $1 AND task_id = 't1' AND hotkey = 'm1'`,
        [C],
      );
      await direct.query('COMMIT');
      await b.transaction((tx) => tx.runs.insertMany([run(C, `raw-b${i}`, 't3', 'm3', true, 5)], W), {
        competitionId: C,
      });
      await agree(`old then new ${i}`, C);
    }
  }, 60_000);

  it('concurrent loads on both stores while both write', async () => {
    const C = 'conc';
    await competition(C);
    await agree('start', C);
    const rng = prng(99);
    let n = 0;
    const errors: unknown[] = [];
    for (let round = 0; round < 8; round++) {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 12; i++) {
        const s = rng.chance(0.5) ? a : b;
        if (rng.chance(0.5)) {
          const runs = [run(C, `c-${++n}`, rng.pick(TASKS), rng.pick(MINERS), rng.chance(0.5), rng.int(1, 9))];
          work.push(s.transaction((tx) => tx.runs.insertMany(runs, W), { competitionId: C }));
        } else if (rng.chance(0.1)) {
          work.push(s.scoringInput.release(C));
        } else {
          work.push(s.capabilities.freshness!.sync(C).then(() => s.scoringInput.load(C, W)));
        }
      }
      for (const r of await Promise.allSettled(work)) if (r.status === 'rejected') errors.push(r.reason);
      await agree(`round ${round}`, C);
    }
    expect(errors).toEqual([]);
  }, 120_000);
  it('a write whose COMMIT fails (a deferred constraint trigger), on either store', async () => {
    const C = 'cf';
    await competition(C);
    await direct.query(`CREATE OR REPLACE FUNCTION attack_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.run_id LIKE 'boom%' THEN RAISE EXCEPTION 'boom at commit'; END IF; RETURN NEW; END $$`);
    await direct.query(`CREATE CONSTRAINT TRIGGER attack_boom AFTER INSERT ON runs DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION attack_boom()`);
    try {
      await a.transaction((tx) => tx.runs.insertMany([run(C, 'cf-1', 't1', 'm1', true, 5)], W), { competitionId: C });
      await agree('start', C);
      const failures: unknown[] = [];
      await a
        .transaction(
          (tx) => tx.runs.insertMany([run(C, 'boom-1', 't1', 'm1', true, 5), run(C, 'boom-x', 't2', 'm2', true, 5)], W),
          { competitionId: C },
        )
        .catch((e: unknown) => failures.push(e));
      await agree('after a failed commit on a', C);
      await b
        .transaction((tx) => tx.runs.insertMany([run(C, 'boom-2', 't3', 'm1', true, 5)], W), { competitionId: C })
        .catch((e: unknown) => failures.push(e));
      await b.transaction((tx) => tx.runs.insertMany([run(C, 'cf-2', 't3', 'm3', true, 5)], W), { competitionId: C });
      await agree('after a failed commit on b and a good write', C);
      expect(failures.map((e) => String((e as Error).message))).toEqual([
        expect.stringMatching(/boom at commit/),
        expect.stringMatching(/boom at commit/),
      ]);
    } finally {
      await direct.query('DROP TRIGGER attack_boom ON runs');
    }
  }, 30_000);

  it('notifier reconnects while the peer writes', async () => {
    const C = 'nr';
    await competition(C);
    await agree('start', C);
    let terminated = 0;
    const LISTENING = `FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'swe-scoring listen %'`;
    for (let i = 0; i < 4; i++) {
      // Both stores' notifiers are back (they reconnect by themselves, after a backoff) before each round's cut.
      await vi.waitFor(
        async () =>
          expect(Number((await direct.query(`SELECT count(*) AS n ${LISTENING}`)).rows[0].n)).toBeGreaterThanOrEqual(2),
        { timeout: 15_000, interval: 50 },
      );
      const killed = await direct.query(`SELECT pg_terminate_backend(pid) ${LISTENING}`);
      terminated += killed.rowCount ?? 0;
      await a.transaction((tx) => tx.runs.insertMany([run(C, `nr-a${i}`, TASKS[i]!, 'm1', true, 5)], W), {
        competitionId: C,
      });
      await b.transaction((tx) => tx.runs.insertMany([run(C, `nr-b${i}`, TASKS[i]!, 'm2', true, 5)], W), {
        competitionId: C,
      });
      await new Promise((r) => setTimeout(r, 150));
      await agree(`round ${i}`, C);
    }
    // Both notifiers' sessions were ended in every round.
    expect(terminated).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it('scores from a caught-up store equal those of a fresh store (list order included)', async () => {
    const C = 'ord';
    await competition(C);
    const rng = prng(5);
    let n = 0;
    await loaded(b, C);
    for (let step = 0; step < 120; step++) {
      const runs = [
        run(
          C,
          `o-${++n}`,
          rng.pick(TASKS),
          rng.pick(MINERS.concat(['m5', 'm6', 'm0'])),
          rng.chance(0.5),
          rng.int(1, 999),
        ),
      ];
      await (rng.chance(0.7) ? a : b).transaction((tx) => tx.runs.insertMany(runs, W), { competitionId: C });
      await b.capabilities.freshness!.sync(C);
      await b.scoringInput.load(C, W);
    }
    await b.capabilities.freshness!.sync(C);
    const held = await b.scoringInput.load(C, W);
    const f = await openPostgresStore(scratch.url, { max: 2 });
    try {
      await f.capabilities.freshness!.sync(C);
      const got = await f.scoringInput.load(C, W);
      const score = (x: typeof got) => computeScores({ ...x, stages: ['evaluation'], burnRatio: 0 });
      // The caught-up list may hold its pairs in another order (a new pair goes last, as on SQLite):
      // the scores must not depend on it.
      expect(score(held)).toEqual(score(got));
    } finally {
      await f.close();
    }
  }, 60_000);
  it('random mix on three stores: savepoints, two competitions, deletions, rebuilds, old-server writes, releases, loads in flight', async () => {
    const cs = ['fz1', 'fz2'];
    for (const C of cs) await competition(C);
    const c3 = await openPostgresStore(scratch.url, { max: 3 });
    const ref = await openPostgresStore(scratch.url, { max: 2 });
    const stores = [a, b, c3];
    const { validator } = await a.validators.create('fz');
    let excluded = false;
    const rng = prng(Number(process.env.FZ_SEED ?? 2024));
    let n = 0;
    const stored: { C: string; id: string }[] = [];
    const errors: unknown[] = [];
    const background: Promise<unknown>[] = [];
    const newRun = (C: string) => {
      const r = run(
        C,
        `fz-${++n}`,
        rng.pick(TASKS),
        rng.pick(MINERS),
        rng.chance(0.5),
        rng.int(1, 99),
        rng.chance(0.3) ? validator.id : null,
      );
      return r;
    };
    const excl = () => (excluded ? new Set([validator.id]) : new Set<string>());
    try {
      for (let step = 0; step < 150; step++) {
        const s = rng.pick(stores);
        const C = rng.pick(cs);
        const other = cs.find((x) => x !== C)!;
        const roll = rng.next();
        // A load on a random store left in flight while the write goes on.
        if (rng.chance(0.5)) {
          const l = rng.pick(stores);
          background.push(
            l.capabilities
              .freshness!.sync(C)
              .then(() => l.scoringInput.load(C, w(C)))
              .catch((e) => errors.push(e)),
          );
        }
        try {
          if (roll < 0.4) {
            const runs = [newRun(C), newRun(C)];
            await s.transaction(
              async (tx) => {
                await tx.runs.insertMany(runs, w(C), excl());
                if (rng.chance(0.5)) {
                  await tx
                    .transaction(
                      async (inner) => {
                        await inner.runs.insertMany([newRun(other)], w(other), excl());
                        if (rng.chance(0.5)) throw new Error('inner');
                      },
                      { competitionId: other },
                    )
                    .catch(() => undefined);
                }
              },
              rng.chance(0.8) ? { competitionId: C } : undefined,
            );
            for (const r of runs) stored.push({ C, id: r.runId });
          } else if (roll < 0.6 && stored.length > 0) {
            const [gone] = stored.splice(rng.below(stored.length), 1);
            const sr = await s.runs.get(gone!.C, gone!.id);
            if (sr) await s.transaction((tx) => tx.runs.delete(sr, w(gone!.C), excl()), { competitionId: gone!.C });
          } else if (roll < 0.68) {
            excluded = !excluded;
            await s.transaction(
              async (tx) => {
                for (const x of cs) {
                  await tx.validators.setExcluded(x, validator.id, excluded, null);
                  await tx.aggregates.rebuild(x, w(x));
                }
              },
              { competitionId: C },
            );
          } else if (roll < 0.74) {
            weights.set(C, { ...w(C), output: rng.int(1, 5) });
            await s.transaction(
              (tx) => tx.competitions.upsert(C, { name: C, tokenWeights: w(C) }).then(() => undefined),
              { competitionId: C },
            );
          } else if (roll < 0.8) {
            await unstampedWrite(direct, C);
          } else if (roll < 0.86) {
            await s.scoringInput.release(C);
          } else if (roll < 0.92) {
            // A rebuild inside a savepoint that rolls back, then a pair write.
            const r = newRun(C);
            await s.transaction(
              async (tx) => {
                await tx
                  .transaction(async (inner) => {
                    await inner.aggregates.rebuild(C, w(C));
                    throw new Error('undo');
                  })
                  .catch(() => undefined);
                await tx.runs.insertMany([r], w(C), excl());
              },
              { competitionId: C },
            );
            stored.push({ C, id: r.runId });
          } else {
            await s.transaction(
              (tx) => tx.judges.record(C, JSON.stringify({ step }), `fz-digest-${step}`, w(C)).then(() => undefined),
              { competitionId: C },
            );
          }
        } catch (e) {
          errors.push(e);
        }
        if (step % 3 === 0) {
          await Promise.all(background.splice(0));
          for (const x of cs) {
            await ref.scoringInput.release(x);
            const want = await loaded(ref, x);
            for (const [i, t] of stores.entries())
              expect(await loaded(t, x), `store ${i} step ${step} ${x}`).toEqual(want);
          }
        }
      }
      await Promise.all(background.splice(0));
      expect(errors).toEqual([]);
    } finally {
      await c3.close();
      await ref.close();
    }
  }, 180_000);
  it("a read after a peer's acknowledged write reflects it, with the reader's loads and writes in flight", async () => {
    const C = 'ack';
    await competition(C);
    const ref = await openPostgresStore(scratch.url, { max: 2 });
    const rng = prng(Number(process.env.FZ_SEED ?? 77));
    let n = 0;
    const errors: unknown[] = [];
    try {
      for (let step = 0; step < 80; step++) {
        const background: Promise<unknown>[] = [];
        for (let i = rng.int(0, 3); i > 0; i--)
          background.push(
            b.capabilities
              .freshness!.sync(C)
              .then(() => b.scoringInput.load(C, W))
              .catch((e) => errors.push(e)),
          );
        if (rng.chance(0.3))
          background.push(
            b
              .transaction(
                (tx) => tx.runs.insertMany([run(C, `ack-b${++n}`, rng.pick(TASKS), rng.pick(MINERS), true, 3)], W),
                {
                  competitionId: C,
                },
              )
              .catch((e) => errors.push(e)),
          );
        await a.transaction(
          (tx) =>
            tx.runs.insertMany(
              [run(C, `ack-a${++n}`, rng.pick(TASKS), rng.pick(MINERS), rng.chance(0.5), rng.int(1, 9))],
              W,
            ),
          { competitionId: C },
        );
        const got = await loaded(b, C);
        await Promise.all(background);
        // What the table held when b's read began includes a's write: every pair of a's is in b's read at least as far.
        await ref.scoringInput.release(C);
        const want = await loaded(ref, C);
        const runsOf = (x: typeof got) =>
          new Map(
            x.minerTasks.map((j) => {
              const e = JSON.parse(j);
              return [`${e.taskId}/${e.hotkey}`, e.runs as number];
            }),
          );
        const aRuns = (
          await direct.query<{ task_id: string; miner_hotkey: string; n: string }>(
            `SELECT task_id, miner_hotkey, count(*) AS n FROM runs WHERE competition_id = $1 AND run_id LIKE 'ack-a%' GROUP BY 1, 2`,
            [C],
          )
        ).rows;
        const g = runsOf(got);
        for (const r of aRuns)
          expect(g.get(`${r.task_id}/${r.miner_hotkey}`) ?? 0, `step ${step}`).toBeGreaterThanOrEqual(Number(r.n));
        expect(await loaded(b, C), `b settled, step ${step}`).toEqual(want);
      }
      expect(errors).toEqual([]);
    } finally {
      await ref.close();
    }
  }, 120_000);
});
