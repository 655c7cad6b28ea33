// Competitions not used for a while give back their in-memory state beyond the memory budget
// (../residency.ts, SCORING_MEMORY_BUDGET_MB): the store's (task, miner) pairs, the input and
// coverage pairs made from them, their other stage sets and the bytes made from them (dropped
// through ./cache.ts `onDrop`, counted by the function passed in, src/http/viewBodies.ts `bytes`). Each keeps its final
// scores, as scores restored at a start (./cache.ts `release`): the leaderboard and weights answer
// from them as before, the rest reads the input again. Not while a computation of its scores or a
// fill of its pairs (./filling.ts) is under way; a write meanwhile drops the entry as usual.
import type { Store } from '../../db/contract.js';
import { PAIR_BYTES, residency } from '../residency.js';
import type { ScoreCache } from './cache.js';
import type { PairFilling } from './filling.js';

/** What a sweep gave back (src/app.ts logs it and counts it on /metrics). */
export interface Released {
  given: { competitionId: string; bytes: number }[];
  /** Estimated bytes the competitions still hold after it. */
  heldBytes: number;
  budgetBytes: number;
}

export function memoryRelease(
  store: Store,
  cache: ScoreCache,
  filling: PairFilling,
  budgetBytes: number,
  /** Bytes of the bodies made from a competition's scores (src/http/viewBodies.ts, passed in by src/app.ts). */
  bodyBytes: (competitionId: string) => number,
) {
  const listeners: ((r: Released) => void)[] = [];
  const resident = residency({
    budgetBytes,
    released: (given, heldBytes) => {
      for (const f of listeners) f({ given, heldBytes, budgetBytes });
    },
    sizeOf: async (competitionId) =>
      (await store.scoringInput.held(competitionId)) * PAIR_BYTES + bodyBytes(competitionId),
    async release(competitionId) {
      if (filling.busy(competitionId)) return false;
      if (!cache.release(competitionId)) return false;
      await store.scoringInput.release(competitionId);
      return true;
    },
  });
  cache.onUse((competitionId) => resident.touch(competitionId));
  return {
    /** Whether what the competitions hold is under the budget: a fill at the start goes on while it is. */
    room: async () => (await resident.held()) < budgetBytes,
    /**
     * Has the least recently used competitions beyond the memory budget give back their state (also
     * run every few seconds); answers how many did.
     */
    sweep: () => resident.sweep(),
    /** Tells `f` of each sweep that released any competition's state. */
    onRelease: (f: (r: Released) => void) => void listeners.push(f),
    /** Estimated bytes the competitions hold now, and the budget (/metrics). */
    held: () => resident.held(),
    budgetBytes,
    /** Stops the sweeps (the server is closing). */
    close: () => resident.close(),
  };
}

export type MemoryRelease = ReturnType<typeof memoryRelease>;
