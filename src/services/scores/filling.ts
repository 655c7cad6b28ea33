// The in-memory (task, miner) pairs of competitions restored from saved scores at the start
// (./warmStart.ts), filled in the background a page per turn of the event loop. A read of a
// competition's input while its pairs are being filled waits for them rather than reading every
// pair at once (./cache.ts `loadInput`).
import type { CompetitionSettings } from '../../db/competitions.js';
import type { Store } from '../../db/contract.js';

export function pairFilling(store: Store) {
  const preparing = new Map<string, Promise<void>>();
  let stopped = false;
  let prepared: Promise<void> = Promise.resolve();

  /** Fills one competition's in-memory pairs, a page per turn of the event loop; never fails. */
  async function fill(competition: CompetitionSettings): Promise<void> {
    try {
      for await (const _ of store.scoringInput.prepare(competition.id, competition.tokenWeights)) {
        await new Promise((resolve) => setImmediate(resolve));
        if (stopped) return;
      }
    } catch {
      // The pairs are read whole by the competition's next load instead.
    }
  }

  return {
    /** Queues the competitions' fills, one competition at a time, each while `room` says there is memory for it. */
    start(competitions: CompetitionSettings[], room: () => Promise<boolean> = async () => true): void {
      for (const c of competitions) {
        const filling = prepared.then(async () => (stopped || !(await room()) ? undefined : fill(c)));
        preparing.set(c.id, filling);
        void filling.then(() => {
          if (preparing.get(c.id) === filling) preparing.delete(c.id);
        });
        prepared = filling;
      }
    },
    /**
     * Settles once the competition's pairs are filled (every queued one's when none is named);
     * undefined when the competition's are not being filled.
     */
    wait(competitionId?: string): Promise<void> | undefined {
      return competitionId === undefined ? prepared : preparing.get(competitionId);
    },
    /** Stops every fill after its current page, and settles once they have stopped. */
    async stop(): Promise<void> {
      stopped = true;
      await prepared;
    },
  };
}

export type PairFilling = ReturnType<typeof pairFilling>;
