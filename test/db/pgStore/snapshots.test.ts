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
    // What the periodic pass reads instead of the runs: the number the last deletion took, the runs counted.
    expect(await both(p, 'snapshots.lastDeletedSeq', c)).toBe(0);
    expect(await both(p, 'snapshots.countedRuns', c)).toBe(ids.length);
    const deleted = ids.filter(() => rng.chance(0.01));
    for (const id of deleted) await both(p, 'runs.delete', p.sq.runs.get(c, id)!, w, new Set());
    expect(await both(p, 'snapshots.lastDeletedSeq', c)).toBe(p.sq.snapshots.runSeq());
    expect(await both(p, 'snapshots.countedRuns', c)).toBe(ids.length - deleted.length);
    expect(await both(p, 'snapshots.lastDeletedSeq', 'none')).toBe(0);
    expect(await both(p, 'snapshots.countedRuns', 'none')).toBe(0);
    for (const at of [mid, p.sq.snapshots.runSeq()]) {
      await both(p, 'snapshots.inputRuns', c, at, []);
      await both(p, 'snapshots.inputRuns', c, at, ['val-a']);
    }
  });
});
