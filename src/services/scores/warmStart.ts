// Scores across a restart: saved at shutdown (src/db/savedScores.ts), restored or computed before
// the server listens, so the first reads after a deploy answer from memory.
import type { WriteEvent } from '../../db/events.js';
import type { CompetitionSettings } from '../../db/competitions.js';
import type { SavedScores } from '../../db/contract.js';
import type { Store } from '../../db/contract.js';
import { scoringCodeIdentity } from '../scoringCode.js';
import type { ScoreCache } from './cache.js';
import type { PairFilling } from './filling.js';
import type { MemoryRelease } from './release.js';
import type { ScoreReads } from './reads.js';
import type { View } from './views.js';

export function warmStart(
  store: Store,
  cache: ScoreCache,
  reads: ScoreReads,
  filling: PairFilling,
  memory: MemoryRelease,
) {
  return {
    /**
     * Makes every competition's scores for its final stages, and hands their leaderboard, weights
     * and weights on chain views to `visit` (the HTTP layer makes their bytes), so the first reads
     * after a start (a deploy, a restart) answer from memory: from the scores saved at the last
     * shutdown where they are current, else computed.
     * Called once before the server listens. The in-memory pairs of the restored competitions are
     * then read in the background (./filling.ts), a page per turn of the event loop.
     */
    async warm(
      visit: (view: View) => unknown = (view) => view.value(),
    ): Promise<{ computed: number; restored: number }> {
      const all = await store.competitions.list();
      // A competition a write event names once its saved scores are read may have moved past them
      // (on PostgreSQL another process can write meanwhile): it is computed instead.
      const touched = new Set<string>();
      const note = (event: WriteEvent) => void touched.add(event.competitionId);
      store.listeners.add(note);
      const restored: CompetitionSettings[] = [];
      try {
        const saved = new Map(
          ((await store.capabilities.savedScores?.load(scoringCodeIdentity())) ?? []).map((e) => [e.competitionId, e]),
        );
        for (const c of all) {
          const kept = saved.get(c.id);
          if (kept && !touched.has(c.id) && kept.stages.join(',') === c.finalStages.join(',')) {
            cache.restore(c, kept.scores);
            restored.push(c);
          }
        }
      } finally {
        store.listeners.delete(note);
      }
      for (const c of all) {
        await visit(await reads.leaderboard(c.id));
        await visit(await reads.weights(c.id));
        // A competition without a metagraph has no weights on chain (a 409 for whoever reads them).
        await Promise.resolve(reads.chain(c.id))
          .then(visit)
          .catch(() => {});
      }
      // One competition at a time while they fit in the memory budget (./release.ts); a read of one
      // still being filled waits for it (./cache.ts), one not filled reads its pairs itself.
      filling.start(restored, memory.room);
      return { computed: all.length - restored.length, restored: restored.length };
    },

    /**
     * Settles once the in-memory pairs of a competition restored at the start are filled (of every
     * such competition when none is named); at once for the others.
     */
    async prepared(competitionId?: string): Promise<void> {
      await filling.wait(competitionId);
    },

    /**
     * Saves every competition's final-stage scores for the next start (src/db/savedScores.ts).
     * Called as the server shuts down, after its last write: a competition's scores are held only
     * while no write event has come since they were computed, so each stands for the data as this
     * process was told of it (on PostgreSQL the store records that version with them). Those a
     * write dropped since the last read (the usual case while validators send runs) are computed
     * first: with the pairs in memory that is the cost of one cold read, which the next start would
     * otherwise pay before listening. Within `budgetMs`, so a stop is never held long: a
     * competition not reached is computed at the next start.
     */
    async save(budgetMs = 3000): Promise<number> {
      await filling.stop();
      const saving = store.capabilities.savedScores;
      if (!saving) return 0;
      const deadline = performance.now() + budgetMs;
      for (const c of await store.competitions.list()) {
        if (performance.now() > deadline) break;
        await cache.scored(c.id, undefined);
      }
      // Collected in the turn the store records what they stand for (src/db/savedScores.ts).
      return saving.save(scoringCodeIdentity(), () => {
        const entries: SavedScores[] = [];
        for (const competitionId of cache.competitionIds()) {
          const s = cache.finalInHand(competitionId);
          if (s) entries.push({ competitionId, stages: s.scores.stages, scores: s.scores });
        }
        return entries;
      });
    },
  };
}
