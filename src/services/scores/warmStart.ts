// Scores across a restart: saved at shutdown (src/db/savedScores.ts), the newest competition's
// restored before the server listens and each other's on its first read or by a pass once the
// server listens (./saved.ts), so a start's time does not grow with the competitions a deployment
// has run, and the first reads after a deploy answer from memory.
import type { CompetitionSettings } from '../../db/competitions.js';
import type { SavedScores } from '../../db/capabilities.js';
import type { Store } from '../../db/contract.js';
import { scoringCodeIdentity } from '../scoringCode.js';
import type { ScoreCache } from './cache.js';
import type { PairFilling } from './filling.js';
import type { MemoryRelease } from './release.js';
import type { ScoreReads } from './reads.js';
import type { SavedScoresOnDemand } from './saved.js';
import type { View } from './views.js';

export interface Warmed {
  computed: number;
  restored: number;
}

/** One turn of the event loop: requests that came meanwhile go first. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

export function warmStart(
  store: Store,
  cache: ScoreCache,
  reads: ScoreReads,
  filling: PairFilling,
  memory: MemoryRelease,
  saved: SavedScoresOnDemand,
) {
  let pass: Promise<Warmed> = Promise.resolve({ computed: 0, restored: 0 });
  let stopped = false;
  /** Per competition the pass has not reached yet: settles once it has (and queued its fill). */
  const reached = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  /**
   * Every competition in turn, one a turn of the event loop: its final-stage scores (restored where
   * its saved row is current, else computed) and the leaderboard, weights and weights on chain
   * views handed to `visit` (the HTTP layer makes their bytes). The in-memory pairs of the
   * competitions restored so far are then queued to be read in the background (./filling.ts), from
   * once the pass is done (the first reads after a start and the pass go first), one competition
   * at a time while they fit in the memory budget (./release.ts); a read of one still being filled
   * waits for it (./cache.ts), one not filled reads its pairs itself. A read that waits begins the
   * fills at once, the pass's own included: a fill that waited for the pass while the pass waited
   * for it (a restored competition a write reached first) never ended, nor did the pass.
   */
  async function run(all: CompetitionSettings[], visit: (view: View) => unknown): Promise<Warmed> {
    let restored = 0;
    for (const c of all) {
      await turn();
      if (stopped) break;
      try {
        await visit(await reads.leaderboard(c.id));
        await visit(await reads.weights(c.id));
        // A competition without a metagraph has no weights on chain (a 409 for whoever reads them).
        await Promise.resolve(reads.chain(c.id))
          .then(visit)
          .catch(() => {});
      } catch {
        // Deleted meanwhile, or the database did not answer: its next read makes them.
      }
      const filled = saved.drainRestored();
      restored += filled.length;
      if (!stopped) filling.start(filled, memory.room, () => pass);
      reached.get(c.id)?.resolve();
      reached.delete(c.id);
    }
    for (const r of reached.values()) r.resolve();
    reached.clear();
    return { computed: all.length - restored, restored };
  }

  /**
   * The newest competition (the live one, whose reads come first after a deploy) restored from its
   * saved row before the server listens, with its leaderboard, weights and weights on chain made
   * and `ahead` (their kept compressed forms): one row whatever the deployment's history, and
   * nothing computed (with no current row it waits for its first read or the pass, as the others).
   */
  async function newestReady(all: CompetitionSettings[], ahead: (view: View) => Promise<unknown>): Promise<void> {
    const newest = all.reduce<CompetitionSettings | undefined>(
      (a, c) => (!a || c.createdAt > a.createdAt || (c.createdAt === a.createdAt && c.id > a.id) ? c : a),
      undefined,
    );
    if (!newest) return;
    await cache.restoreSaved(newest.id);
    if (!cache.finalInHand(newest.id)) return;
    try {
      await ahead(await reads.leaderboard(newest.id));
      await ahead(await reads.weights(newest.id));
      await Promise.resolve(reads.chain(newest.id)).then(ahead, () => {});
    } catch {
      // Made by its first read instead.
    }
  }

  return {
    /**
     * Called once as the server starts, before it listens: marks every competition's saved scores
     * to be consulted on its first read, makes the newest one ready (`newestReady`: at most one
     * saved row read), and starts the pass that makes every competition's scores and bodies
     * (`warmed` settles once it is done). Computes nothing itself.
     */
    async warm(
      visit: (view: View) => unknown = (view) => view.value(),
      ahead: (view: View) => Promise<unknown> = async (view) => visit(view),
    ): Promise<void> {
      const all = await store.competitions.list();
      saved.expect(all.map((c) => c.id));
      for (const c of all) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        reached.set(c.id, { promise, resolve });
      }
      await newestReady(all, ahead);
      pass = run(all, visit);
    },

    /** Settles once the start's pass has made every competition's scores: how many were computed, how many restored. */
    warmed: (): Promise<Warmed> => pass,

    /**
     * Settles once the in-memory pairs of a competition restored at the start are filled (of every
     * such competition when none is named); for the others once the start's pass has reached them.
     */
    async prepared(competitionId?: string): Promise<void> {
      await (competitionId === undefined ? pass : reached.get(competitionId)?.promise);
      await filling.wait(competitionId);
    },

    /**
     * Saves every competition's final-stage scores for the next start (src/db/savedScores.ts).
     * Called as the server shuts down, after its last write: a competition's scores are held only
     * while no write event has come since they were computed, so each stands for the data as this
     * process was told of it (on PostgreSQL the store records that version with them). Those a
     * write dropped since the last read (the usual case while validators send runs) are computed
     * first: with the pairs in memory that is the cost of one cold read, which the next start would
     * otherwise pay. Within `budgetMs`, so a stop is never held long: a competition not reached is
     * computed at the next start. One whose saved row was not consulted yet is restored from it.
     */
    async save(budgetMs = 3000): Promise<number> {
      stopped = true;
      await pass;
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
