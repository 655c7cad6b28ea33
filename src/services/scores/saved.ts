// Scores saved at the last shutdown (src/db/savedScores.ts), restored one competition at a time:
// the newest competition's before the server listens, each other's on its first score read after
// the start, or by the pass that goes through every competition once the server listens
// (./warmStart.ts), whichever comes first. A start reads one saved row before it listens, so its
// time does not grow with the competitions a deployment has run; a read that comes before the pass
// reaches its competition reads that one row (a primary-key read and its JSON).
//
// A competition is pending from the start until its row is consulted or a write event names it
// (on SQLite the write's transaction deleted the row; on PostgreSQL it moved the version past it).
// A row is restored only while no write event has named the competition since it was read, and
// only where the competition's final stages are the ones saved; otherwise its scores are computed.
import type { CompetitionSettings } from '../../db/competitions.js';
import type { Store } from '../../db/contract.js';
import type { CompetitionScores } from '../../scoring/types.js';
import { scoringCodeIdentity } from '../scoringCode.js';

interface Restoring {
  done: Promise<void>;
  /** Set when a write event names the competition while its row is read. */
  written: boolean;
}

export function savedScoresOnDemand(store: Store) {
  const pending = new Set<string>();
  const restoring = new Map<string, Restoring>();
  const restored: CompetitionSettings[] = [];
  store.listeners.add((event) => {
    pending.delete(event.competitionId);
    const r = restoring.get(event.competitionId);
    if (r) r.written = true;
  });

  return {
    /** Marks the competitions as pending: their saved rows are consulted on their first score read. */
    expect(competitionIds: Iterable<string>): void {
      if (!store.capabilities.savedScores) return;
      for (const id of competitionIds) pending.add(id);
    },

    /**
     * Consults a pending competition's saved row and hands it to `restore` while it is current;
     * undefined at once when there is nothing to consult (the usual case: one set lookup), else
     * settles once it is done (never fails: on an error the caller goes on as if there were no
     * row, and the competition is computed).
     * `restore` is called in the turn the row is judged current.
     */
    take(
      competitionId: string,
      restore: (competition: CompetitionSettings, scores: CompetitionScores) => boolean,
    ): Promise<void> | undefined {
      const under = restoring.get(competitionId);
      if (under) return under.done;
      if (!pending.delete(competitionId)) return undefined;
      const saving = store.capabilities.savedScores!;
      const r: Restoring = { done: Promise.resolve(), written: false };
      r.done = (async () => {
        try {
          const competition = await store.competitions.get(competitionId);
          if (!competition) return;
          const row = await saving.load(scoringCodeIdentity(), competitionId);
          if (!row || r.written || row.stages.join(',') !== competition.finalStages.join(',')) return;
          if (restore(competition, row.scores)) restored.push(competition);
        } catch {
          // Computed instead (a read while the database does not answer fails as usual).
        } finally {
          restoring.delete(competitionId);
        }
      })();
      restoring.set(competitionId, r);
      return r.done;
    },

    /** Hands out the competitions restored since the last call (for the background fill of their pairs). */
    drainRestored(): CompetitionSettings[] {
      return restored.splice(0);
    },
  };
}

export type SavedScoresOnDemand = ReturnType<typeof savedScoresOnDemand>;
