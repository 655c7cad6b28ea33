// The snapshots repository's input runs on both engines, paged by run id with deletions merged in.
// Both engines through their real migrations (test/support/enginePair.ts).
import { describe, expect, it } from 'vitest';
import { testPostgres } from '../../support/postgres.js';
import { prng } from '../../support/prng.js';
import { both, enginePairs, run, sweTask } from '../../support/enginePair.js';

const server = await testPostgres('test/db/pgStore/snapshots.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

describe.runIf(server.available)('PostgreSQL store: snapshot inputs, the same answers as SQLite', () => {
  const freshPair = enginePairs('pg_store_snapshots');

  it('snapshot inputs page by run id across pages, deletions merged in', async () => {
    const p = await freshPair();
    const c = 'big';
    await both(p, 'competitions.upsert', c, { name: c });
    await both(p, 'tasks.upsertMany', c, [sweTask('t')]);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const rng = prng(7);
    const ids = Array.from({ length: 4500 }, (_, i) => `${rng.pick(['a', 'B', 'c', '0', 'Z'])}${i}`);
    for (let i = 0; i < ids.length; i += 1500) {
      await both(
        p,
        'runs.insertMany',
        ids.slice(i, i + 1500).map((runId) => run(c, { runId, taskId: 't', hotkey: rng.pick(['m1', 'm2']) })),
        w,
        new Set(),
      );
    }
    const mid = p.sq.snapshots.runSeq();
    for (const id of ids.filter(() => rng.chance(0.01)))
      await both(p, 'runs.delete', p.sq.runs.get(c, id)!, w, new Set());
    for (const at of [mid, p.sq.snapshots.runSeq()]) {
      await both(p, 'snapshots.inputRuns', c, at, []);
      await both(p, 'snapshots.inputRuns', c, at, ['val-a']);
    }
  });
});
