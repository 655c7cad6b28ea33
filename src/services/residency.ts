// Which competitions keep their in-memory state (src/services/scores/release.ts): the scoring input's
// (task, miner) pairs, the input and coverage pairs made from them, the response bytes made from its scores (src/http/viewBodies.ts).
// Every competition read or written since the start would otherwise keep them for the life of the
// process, although a server that has run many competitions reads only a few of them at a time.
//
// A read or a write of a competition marks it used (`touch`). Every few seconds, and soon after a
// competition not held yet is used, a sweep totals what each held competition is estimated to
// take; while the total is over the budget (SCORING_MEMORY_BUDGET_MB) it has the least recently
// used give its state back, never the one used last, nor one used since the sweep before. What a
// competition gives back is made again from the database on its next read: a release changes how
// long that read takes, never what it answers.

/**
 * SCORING_MEMORY_BUDGET_MB's default: about one competition of the reference size (256 miners x 324
 * tasks, some 17 MB counted), so a server keeps the competitions in use and gives back the others.
 */
export const DEFAULT_MEMORY_BUDGET_MB = 16;

/**
 * Bytes a held (task, miner) pair is counted for: its mirror entry and map slot, the input's list,
 * the coverage pair made from it and the share of the bodies made from them: about what a reference
 * competition's state adds to the server's heap.
 */
export const PAIR_BYTES = 200;

/** How often the sweep runs. A competition used since the sweep before is not released, whatever the budget. */
const SWEEP_MS = 2000;
/** After a competition not held yet is used: the sweep that looks at the total soon. */
const SOON_MS = 500;

export interface ResidencyOptions {
  budgetBytes: number;
  /** Estimated bytes a competition holds now; 0 when it holds nothing. */
  sizeOf(competitionId: string): Promise<number>;
  /** Gives back what the competition holds; false when it cannot now (a computation under way). */
  release(competitionId: string): Promise<boolean>;
  /** After a sweep that released any: what each gave back, and the total held after it (bytes). */
  released?(given: { competitionId: string; bytes: number }[], heldBytes: number): void;
}

export function residency(options: ResidencyOptions) {
  /** Competitions used, least recently first, with the tick of their last use. */
  const used = new Map<string, number>();
  /** Counts sweeps: uses within one tick keep the order of their first use in it. */
  let tick = 0;
  let sweeping: Promise<number> | null = null;
  let soon: NodeJS.Timeout | null = null;
  let closed = false;
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();

  async function run(): Promise<number> {
    tick++;
    const ids = [...used.keys()];
    const sizes = await Promise.all(ids.map((id) => options.sizeOf(id)));
    let total = sizes.reduce((a, b) => a + b, 0);
    const given: { competitionId: string; bytes: number }[] = [];
    for (let i = 0; i < ids.length - 1 && total > options.budgetBytes; i++) {
      const id = ids[i]!;
      if (sizes[i] === 0 || used.get(id)! >= tick - 1) continue;
      if (await options.release(id)) {
        total -= sizes[i]!;
        given.push({ competitionId: id, bytes: sizes[i]! });
      }
    }
    if (given.length > 0) options.released?.(given, total);
    // Those holding nothing (released, or never loaded) are marked again by their next use.
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (used.get(id)! < tick - 1 && (sizes[i] === 0 || (await options.sizeOf(id)) === 0)) used.delete(id);
    }
    return given.length;
  }

  /** Releases the least recently used competitions beyond the budget; answers how many. */
  function sweep(): Promise<number> {
    if (closed) return Promise.resolve(0);
    return (sweeping ??= run().finally(() => (sweeping = null)));
  }

  return {
    /** Marks a competition used now: on every read and write, so it costs one map lookup. */
    touch(competitionId: string): void {
      const at = used.get(competitionId);
      if (at === tick) return;
      used.delete(competitionId);
      used.set(competitionId, tick);
      // A competition newly used may be about to load: look at the total soon, not a sweep later.
      if (at === undefined && !soon && !closed) {
        soon = setTimeout(() => {
          soon = null;
          void sweep();
        }, SOON_MS);
        soon.unref();
      }
    },
    sweep,
    /** Estimated bytes held by the competitions used. */
    async held(): Promise<number> {
      const sizes = await Promise.all([...used.keys()].map((id) => options.sizeOf(id)));
      return sizes.reduce((a, b) => a + b, 0);
    },
    close(): void {
      closed = true;
      clearInterval(timer);
      if (soon) clearTimeout(soon);
    },
  };
}
