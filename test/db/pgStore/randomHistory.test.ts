// A seeded random history of every repository's writes, every read compared after each step.
// Both engines through their real migrations (test/support/enginePair.ts).
import { describe, expect, it } from 'vitest';
import { testPostgres } from '../../support/postgres.js';
import { prng } from '../../support/prng.js';
import { both, compareAll, enginePairs, qnaTask, run, sweTask } from '../../support/enginePair.js';
import type { StoredRun } from '../../../src/db/runs.js';
import type { TokenWeights } from '../../../src/scoring/types.js';

const server = await testPostgres('test/db/pgStore/randomHistory.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

describe.runIf(server.available)('PostgreSQL store: a random history, the same answers as SQLite', () => {
  const freshPair = enginePairs('pg_store_random');

  it('a seeded random history, read back after every step', async () => {
    const p = await freshPair();
    const rng = prng(20261201);
    const competitions = ['ca', 'cb'];
    const hotkeys = ['hk-a', 'hk-b', 'HK-c', 'hk.d', 'hk:e'];
    const validatorIds = ['val-a', 'val-b', 'val-x', null];
    const taskIds = new Map<string, string[]>();
    for (const [i, c] of competitions.entries()) {
      await both(p, 'competitions.upsert', c, { name: c });
      const tasks = [
        sweTask(`s-${i}-1`),
        sweTask(`S-${i}-2`, 'screener_2'),
        qnaTask(`q-${i}-1`, i, 3),
        qnaTask(`Q-${i}`, i, 4),
      ];
      await both(p, 'tasks.upsertMany', c, tasks);
      taskIds.set(
        c,
        tasks.map((t) => t.id),
      );
    }
    const excludedOf = (c: string) => new Set(p.sq.competitions.get(c)!.excludedValidators);
    const count = () => (rng.chance(0.1) ? null : rng.chance(0.05) ? 2 ** 40 + rng.int(0, 1000) : rng.int(0, 50_000));
    let n = 0;
    for (let step = 0; step < 40; step++) {
      const c = rng.pick(competitions);
      const w = p.sq.competitions.get(c)!.tokenWeights;
      const roll = rng.next();
      if (roll < 0.5) {
        const batch = Array.from({ length: rng.int(1, 60) }, () => {
          const taskId = rng.pick(taskIds.get(c)!);
          const input = count();
          const output = count();
          return run(c, {
            runId: `${rng.pick(['r', 'R', 'x'])}-${n++}`,
            taskId,
            hotkey: rng.chance(0.25) ? null : rng.pick(hotkeys),
            validatorId: rng.pick(validatorIds),
            resolved: rng.chance(0.5),
            tokens:
              input === null || output === null
                ? null
                : { input, cachedInput: rng.chance(0.3) ? null : count(), output },
            criteria: taskId.toLowerCase().startsWith('q') && rng.chance(0.8) ? rng.int(1, 3) : 0,
          });
        });
        await both(p, 'runs.insertMany', batch, w, excludedOf(c));
      } else if (roll < 0.65) {
        const runs = p.sq.runs.list(c, { limit: 100_000 });
        if (runs.length > 0) await both(p, 'runs.delete', rng.pick<StoredRun>(runs), w, excludedOf(c));
      } else if (roll < 0.75) {
        await both(p, 'validators.setExcluded', c, rng.pick(['val-a', 'val-b', 'val-x']), rng.chance(0.5), null);
        await both(p, 'aggregates.rebuild', c, w);
      } else if (roll < 0.83) {
        const weights: TokenWeights = {
          input: rng.pick([0, 0.3, 1, 1.7]),
          cachedInput: rng.pick([0, 0.1, 0.25]),
          output: rng.pick([0, 2.9, 3]),
        };
        await both(p, 'competitions.upsert', c, { name: c, tokenWeights: weights });
      } else if (roll < 0.9) {
        await both(p, 'miners.setExcluded', c, rng.pick(hotkeys), rng.chance(0.5), rng.chance(0.5) ? 'why' : null);
      } else {
        const latest = p.sq.snapshots.latest(c);
        await both(p, 'snapshots.insert', {
          competitionId: c,
          seq: (latest?.seq ?? 0) + 1,
          takenAt: 'now',
          runSeq: p.sq.snapshots.runSeq(),
          document: '{}',
          inputHead: '',
          hash: 'h',
        });
      }
      // The scoring input every step (its in-memory mirror follows the events); the rest now and then.
      await both(p, 'scoringInput.load', c, p.sq.competitions.get(c)!.tokenWeights);
      if (step % 8 === 7) await compareAll(p, competitions, rng);
    }
    await compareAll(p, competitions, rng);
  });
});
