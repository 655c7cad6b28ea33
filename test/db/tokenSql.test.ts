// The SQL rebuild of the aggregates (src/db/tokenSql.ts), the incremental writer and the scoring
// core's aggregateRuns must give the same sums, bit for bit, on any runs and any valid weights:
// real SQLite through the real migrations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/client.js';
import { competitionsRepo } from '../../src/db/competitions.js';
import { rebuildAggregates } from '../../src/db/aggregates.js';
import { runsRepo, type RunRecord } from '../../src/db/runs.js';
import { scoringInputRepo } from '../../src/db/scoringInput.js';
import { aggregateRuns } from '../../src/scoring/aggregateRuns.js';
import type { TokenWeights } from '../../src/scoring/types.js';

const TASKS = ['t0', 't1', 't2'];
const count = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5_000_000 }));
const weight = fc.oneof(fc.constantFrom(0, 0.1, 1, 3), fc.double({ min: 0, max: 10, noNaN: true }));
const weights = fc.record({ input: weight, cachedInput: weight, output: weight });
const run = fc.record({
  taskId: fc.constantFrom(...TASKS),
  hotkey: fc.constantFrom(null, 'a', 'b', 'c'),
  resolved: fc.boolean(),
  tokens: fc.option(fc.record({ input: count, cachedInput: fc.option(count), output: count })),
  deleted: fc.boolean(),
});

function setUp(): Db {
  const db = openDatabase(':memory:');
  competitionsRepo(db).upsert('c', { name: 'c' });
  const insert = db.$client.prepare(
    "INSERT INTO tasks (competition_id, id, type, stage) VALUES ('c', ?, 'swebench_verified', 'evaluation')",
  );
  for (const id of TASKS) insert.run(id);
  return db;
}

/** Sums as the core computes them and as the server reads them back, in one comparable shape. */
function coreView(records: RunRecord[], w: TokenWeights) {
  const { baselines, minerTasks } = aggregateRuns(
    records.map((r) => ({ ...r, hotkey: r.minerHotkey })),
    w,
  );
  return {
    baselines: TASKS.map(
      (id) => baselines.get(id) ?? { runs: 0, resolved: 0, resolvedTokenSum: 0, resolvedTokenCount: 0 },
    ),
    minerTasks,
  };
}

function serverView(db: Db, w: TokenWeights) {
  const loaded = scoringInputRepo(db).load('c', w);
  return {
    baselines: [...loaded.tasks].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => t.baseline),
    minerTasks: [...loaded.minerTasks].sort((a, b) => (a.taskId + a.hotkey < b.taskId + b.hotkey ? -1 : 1)),
  };
}

describe('token sums: SQL rebuild, incremental writer and core agree (SPEC 2, 3)', () => {
  it('on random runs, deletions and weight changes', () => {
    fc.assert(
      fc.property(fc.array(run, { maxLength: 40 }), weights, weights, (raw, w1, w2) => {
        const db = setUp();
        try {
          const records: RunRecord[] = raw.map((r, i) => ({
            competitionId: 'c',
            runId: `r${i}`,
            taskId: r.taskId,
            kind: r.hotkey ? 'miner' : 'baseline',
            minerHotkey: r.hotkey,
            validatorId: null,
            attemptNo: null,
            resolved: r.resolved,
            tokens: r.tokens && { input: r.tokens.input, cachedInput: r.tokens.cachedInput, output: r.tokens.output },
            timeTakenSeconds: null,
            agentSteps: null,
            rubricVotes: null,
            criteria: null,
          }));
          const repo = runsRepo(db);
          db.$client.transaction(() => repo.insertMany(records, w1))();
          const kept = records.filter((r, i) => {
            if (!raw[i]?.deleted) return true;
            repo.delete({ ...r, seq: 0, createdAt: '' }, w1);
            return false;
          });
          // Incremental path (insert, then exact subtraction on delete).
          expect(serverView(db, w1)).toEqual(coreView(kept, w1));
          // The SQL rebuild, under the same weights and under new ones.
          rebuildAggregates(db, 'c', w1);
          expect(serverView(db, w1)).toEqual(coreView(kept, w1));
          rebuildAggregates(db, 'c', w2);
          expect(serverView(db, w2)).toEqual(coreView(kept, w2));
        } finally {
          db.$client.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
