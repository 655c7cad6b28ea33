// Score reads over a cache of computed scores. One job per file:
//   cache.ts       computed scores per (competition, stage set), dropped by the store's write events
//   compute.ts     the one place scores are computed from an input
//   reads.ts       leaderboard, weights, weights on chain, breakdowns, validators, coverage views
//   views.ts       what a read returns: a view of the kept scores (src/http makes its bytes)
//   breakdowns.ts  per-task scores for a miner's or a task's breakdown
//   fresh.ts       scores of an input a snapshot read itself
//   warmStart.ts   saved scores at shutdown; the pass that makes every competition's scores at start
//   saved.ts       saved scores restored on a competition's first read after the start
//   filling.ts     the background fill of restored competitions' in-memory pairs
//   release.ts     competitions not used for a while give their state back, beyond the memory budget
import type { Store } from '../../db/contract.js';
import { scoreCache } from './cache.js';
import { pairFilling } from './filling.js';
import { freshScores } from './fresh.js';
import { memoryRelease } from './release.js';
import { DEFAULT_MEMORY_BUDGET_MB } from '../residency.js';
import { scoreReads } from './reads.js';
import { savedScoresOnDemand } from './saved.js';
import { warmStart } from './warmStart.js';

export function scoresService(
  store: Store,
  observe: (seconds: number) => void = () => {},
  memoryBudgetBytes = DEFAULT_MEMORY_BUDGET_MB * 1024 * 1024,
  /** Bytes kept beside a competition's scores where its reads are made into bytes (src/http/viewBodies.ts `bytes`). */
  bodyBytes: (competitionId: string) => number = () => 0,
) {
  const filling = pairFilling(store);
  const saved = savedScoresOnDemand(store);
  const cache = scoreCache(store, filling, observe, saved);
  const reads = scoreReads(store, cache);
  const memory = memoryRelease(store, cache, filling, memoryBudgetBytes, bodyBytes);
  return {
    ...reads,
    ...warmStart(store, cache, reads, filling, memory, saved),
    fresh: freshScores(cache, observe),
    /** Tells `f` of each competition whose scores a write or a release dropped, after they are dropped. */
    onDrop: (f: (competitionId: string, released: boolean) => void) => cache.onDrop(f),
    sweep: memory.sweep,
    /** The memory budget's releases and what is held against it (src/plugins/serviceMetrics.ts). */
    memory: { onRelease: memory.onRelease, held: memory.held, budgetBytes: memory.budgetBytes },
    close: memory.close,
  };
}

export type ScoresService = ReturnType<typeof scoresService>;
