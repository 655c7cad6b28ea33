// The in-memory (task, miner) pairs of competitions restored from saved scores at the start
// (./warmStart.ts), filled in the background a page per turn of the event loop. A read of a
// competition's input while its pairs are being filled waits for them rather than reading every
// pair at once (./cache.ts `loadInput`).
//
// The fills begin `quietMs` after they are queued, or at once when a read needs a competition's
// input (`wait`): the first reads after a start are answered from the restored scores and kept
// bodies, and a fill running beside them (its pages, the garbage they leave) would make each of
// them wait.
import type { CompetitionSettings } from '../../db/competitions.js';
import type { Store } from '../../db/contract.js';

/** How long the fills queued at a start wait for the first reads to go by. */
export const FILL_QUIET_MS = 1000;

export function pairFilling(store: Store, quietMs = FILL_QUIET_MS) {
  const preparing = new Map<string, Promise<void>>();
  let stopped = false;
  let prepared: Promise<void> = Promise.resolve();
  /**
   * Opens the fills' gate: once `quietMs` have passed and `after` (the start's pass) settled, or on
   * the first `wait`, or at `stop`. Never waits for `after` once a read waits: the pass itself may
   * be that read (a restored competition a write reached before the pass did is computed by it).
   */
  let begin: () => void = () => {};
  let gate: Promise<void> | undefined;
  const opened = (after: () => Promise<unknown>): Promise<void> =>
    (gate ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => void after().then(() => resolve()), quietMs);
      timer.unref();
      begin = () => {
        clearTimeout(timer);
        resolve();
      };
    }));

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
    /**
     * Queues the competitions' fills, one competition at a time, each while `room` says there is
     * memory for it; they begin once `after` settles too (see `opened`), unless a read waits.
     */
    start(
      competitions: CompetitionSettings[],
      room: () => Promise<boolean> = async () => true,
      after: () => Promise<unknown> = async () => {},
    ): void {
      const open = opened(after);
      for (const c of competitions) {
        const filling = prepared.then(async () => {
          await open;
          return stopped || !(await room()) ? undefined : fill(c);
        });
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
      const waiting = competitionId === undefined ? prepared : preparing.get(competitionId);
      if (waiting) begin();
      return waiting;
    },
    /** Whether the competition's pairs are being filled, or queued to be; starts nothing. */
    busy: (competitionId: string): boolean => preparing.has(competitionId),
    /** Stops every fill after its current page, and settles once they have stopped. */
    async stop(): Promise<void> {
      stopped = true;
      begin();
      await prepared;
    },
  };
}

export type PairFilling = ReturnType<typeof pairFilling>;
