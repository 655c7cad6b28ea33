// The aggregates' 2^53 - 1 bound on both engines: the same 422, nothing stored.
// Both engines through their real migrations (test/support/enginePair.ts).
import { describe, expect, it } from 'vitest';
import { testPostgres } from '../../support/postgres.js';
import { both, enginePairs, norm, run, sweTask } from '../../support/enginePair.js';
import { DomainError } from '../../../src/errors.js';
import type { RunRecord } from '../../../src/db/runs.js';

const server = await testPostgres('test/db/pgStore/aggregates.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));
const MAX = Number.MAX_SAFE_INTEGER;

describe.runIf(server.available)('PostgreSQL store: token sums, the same answers as SQLite', () => {
  const freshPair = enginePairs('pg_store_aggregates');

  it('a token sum past 2^53 - 1 is the same 422 on both engines, and stores nothing', async () => {
    const p = await freshPair();
    const c = 'big';
    await both(p, 'competitions.upsert', c, { name: c });
    await both(p, 'tasks.upsertMany', c, [sweTask('t1'), sweTask('t2')]);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const near = { input: MAX - 10, cachedInput: 0, output: 1 };
    await both(p, 'runs.insertMany', [run(c, { runId: 'base', taskId: 't2', tokens: near })], w, new Set());
    await both(
      p,
      'runs.insertMany',
      [run(c, { runId: 'bl', taskId: 't2', hotkey: null, resolved: true, tokens: near })],
      w,
      new Set(),
    );
    const tries: RunRecord[][] = [
      // Within one batch: a new pair whose batch sum passes the bound.
      [
        run(c, { runId: 'a1', taskId: 't1', tokens: { input: MAX, cachedInput: 0, output: 1 } }),
        run(c, { runId: 'a2', taskId: 't1' }),
      ],
      // Over a stored sum: the miner's, then the baseline's; the first pair in batch order is named.
      [
        run(c, { runId: 'b0', taskId: 't1' }),
        run(c, { runId: 'b1', taskId: 't2', tokens: { input: 11, cachedInput: 0, output: 1 } }),
      ],
      [
        run(c, {
          runId: 'c1',
          taskId: 't2',
          hotkey: null,
          resolved: true,
          tokens: { input: 100, cachedInput: 0, output: 1 },
        }),
        run(c, { runId: 'c2', taskId: 't2', tokens: { input: 11, cachedInput: 0, output: 1 } }),
      ],
    ];
    for (const batch of tries) {
      const sq = (() => {
        try {
          p.sq.transaction(() => p.sq.runs.insertMany(batch, w, new Set()));
        } catch (err) {
          return err;
        }
      })();
      p.sqEvents.length = 0;
      expect(sq).toBeInstanceOf(DomainError);
      expect((sq as DomainError).kind).toBe('unprocessable');
      for (const attempt of [
        () => p.pg.runs.insertMany(batch, w, new Set()),
        () => p.pg.transaction((tx) => tx.runs.insertMany(batch, w, new Set()), { competitionId: c }),
      ]) {
        const err = await attempt().catch((e: unknown) => e);
        expect(norm(err, p.ids)).toStrictEqual(norm(sq, new Map()));
        expect(p.pgEvents).toStrictEqual([]);
      }
    }
    // Nothing of the refused batches: the reads that do not show sequence numbers (PostgreSQL's
    // sequence is not rolled back: the numbers the refused batches took are skipped).
    await both(p, 'runs.existing', c, ['a1', 'a2', 'b0', 'b1', 'c1', 'c2', 'base', 'bl']);
    await both(p, 'competitions.counts', c);
    await both(p, 'scoringInput.load', c, w);
    await both(p, 'tasks.list', c);
    await both(p, 'miners.list', c);
  });
});
