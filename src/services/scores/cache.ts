// The score cache. A competition's scores are computed from its aggregates on the first read of a
// stage set and kept until the storage layer reports a write to that competition
// (src/db/events.ts): a read after an acknowledged write never sees the old scores, and no write
// path has to remember to invalidate anything. What is kept beside the scores elsewhere (their
// response bytes, src/http/viewBodies.ts) is dropped with them through `onDrop`: the one path
// from a write to every cache is the store's write event, then this cache, then its listeners.
import type { CompetitionSettings } from '../../db/competitions.js';
import type { Store } from '../../db/contract.js';
import type { WriteEvent } from '../../db/events.js';
import { notFound } from '../../errors.js';
import type { EntryChanges } from '../../scoring/index.js';
import type { CompetitionInput, CompetitionScores, Stage } from '../../scoring/types.js';
import { chain, Settled, type Maybe } from '../settled.js';
import { scoresComputer } from './compute.js';
import type { PairFilling } from './filling.js';
import type { SavedScoresOnDemand } from './saved.js';

export interface Basis {
  scores: CompetitionScores;
  input: CompetitionInput;
}

export interface Scored {
  competition: CompetitionSettings;
  /**
   * The scores with the input they come from, for the reads that need the input (breakdowns): at
   * hand when computed here. For scores saved at the last shutdown the input is read on first
   * need; should a write have come meanwhile (`stale`), the scores are computed again from the
   * input read, so the two always agree.
   */
  basis: () => Maybe<Basis>;
  /** The basis if it is in hand (never starts a read). */
  basisInHand: () => Basis | undefined;
  /** Set when a write drops the entry from the cache. */
  stale?: boolean;
  /** Leaderboard and weights; every miner's `tasks` is empty (breakdowns are computed on demand). */
  scores: CompetitionScores;
}

/**
 * Each competition's final stages as a `byStages` key, made once a settings object: every warm read
 * looks its final scores up (`finalInHand`, twice a kept read on PostgreSQL), and a key joined on
 * each would be a new string to build and hash each time. Settings are never changed in place (a
 * write reads them again).
 */
const finalKeys = new WeakMap<CompetitionSettings, string>();
function finalKey(competition: CompetitionSettings): string {
  let key = finalKeys.get(competition);
  if (key === undefined) finalKeys.set(competition, (key = competition.finalStages.join(',')));
  return key;
}

/** A cache entry: keeps its value once computed; `forget` drops it if it fails (unless a write replaced it meanwhile). */
export function entryOf<T>(p: Promise<T>, forget: () => void): Settled<T> {
  p.catch(forget);
  return new Settled(p);
}

/** Write events after which a competition's settings (its row, its excluded validators) are as before. */
const KEEPS_SETTINGS: ReadonlySet<WriteEvent['kind']> = new Set(['pair', 'tasks', 'miners', 'metagraph', 'runs']);

export function scoreCache(
  store: Store,
  filling: PairFilling,
  observe: (seconds: number) => void,
  /** Scores saved at the last shutdown, consulted on a competition's first read (./saved.ts). */
  saved?: SavedScoresOnDemand,
) {
  // Per competition: its settings, read once, and the scores of each stage set asked for. Entries
  // are promises that keep their values (../settled.ts): concurrent first reads share one
  // computation, and a warm read runs without waiting. A write drops the competition's entry (a
  // computation still running then finishes for the readers that came before the write).
  const cache = new Map<
    string,
    { competition: Settled<CompetitionSettings>; byStages: Map<string, Settled<Scored>> }
  >();
  const dropped: ((competitionId: string, released: boolean) => void)[] = [];
  const scoring = scoresComputer();
  const used: ((competitionId: string) => void)[] = [];
  const use = (competitionId: string) => {
    for (const f of used) f(competitionId);
  };
  store.listeners.add((event) => {
    use(event.competitionId);
    const entry = cache.get(event.competitionId);
    for (const s of entry?.byStages.values() ?? []) {
      const value = s.get();
      if (!(value instanceof Promise)) value.stale = true;
    }
    // Runs, tasks, miners and metagraphs leave the settings as they are: only the scores go. Settings
    // still being read (or failing) are read again.
    if (entry && KEEPS_SETTINGS.has(event.kind) && !(entry.competition.get() instanceof Promise))
      cache.set(event.competitionId, { competition: entry.competition, byStages: new Map() });
    else cache.delete(event.competitionId);
    for (const f of dropped) f(event.competitionId, false);
  });

  /** The scoring input, and how its pairs differ from the list the store gave before, if it knows. */
  async function loadChanged(
    competition: CompetitionSettings,
    stages: Stage[],
  ): Promise<{ input: CompetitionInput; changes: EntryChanges | undefined }> {
    await filling.wait(competition.id);
    const loaded = await store.scoringInput.load(competition.id, competition.tokenWeights);
    const changes = await store.scoringInput.pairChanges?.(competition.id);
    return { input: { ...loaded, stages, burnRatio: competition.burnRatio }, changes };
  }

  const loadInput = async (competition: CompetitionSettings, stages: Stage[]) =>
    (await loadChanged(competition, stages)).input;

  async function compute(competition: CompetitionSettings, stages: Stage[]): Promise<Scored> {
    const started = process.hrtime.bigint();
    const { input, changes } = await loadChanged(competition, stages);
    const scores = scoring.compute(competition.id, input, changes);
    observe(Number(process.hrtime.bigint() - started) / 1e9);
    const basis = { scores, input };
    return { competition, basis: () => basis, basisInHand: () => basis, scores };
  }

  function settings(competitionId: string) {
    let entry = cache.get(competitionId);
    if (!entry) {
      const competition = entryOf(
        store.competitions.get(competitionId).then((c) => {
          if (!c) throw notFound(`competition ${competitionId} does not exist`);
          return c;
        }),
        () => {
          if (cache.get(competitionId) === entry) cache.delete(competitionId);
        },
      );
      entry = { competition, byStages: new Map() };
      cache.set(competitionId, entry);
    }
    const found = entry;
    return chain(found.competition.get(), (competition) => ({ entry: found, competition }));
  }

  function scoredHere(competitionId: string, stages: Stage[] | undefined): Maybe<Scored> {
    use(competitionId);
    return chain(settings(competitionId), ({ entry, competition }) => {
      const chosen = stages ?? competition.finalStages;
      const key = chosen.join(',');
      let s = entry.byStages.get(key);
      if (!s) {
        const made = entryOf(compute(competition, chosen), () => {
          if (entry.byStages.get(key) === made) entry.byStages.delete(key);
        });
        entry.byStages.set(key, (s = made));
      }
      return s.get();
    });
  }

  const api = {
    /**
     * Registers what to drop when a write or a release (`release`, then `released` is true) drops a
     * competition's scores (after they are dropped).
     */
    onDrop(f: (competitionId: string, released: boolean) => void): void {
      dropped.push(f);
    },

    /** Registers what to tell of every read and write of a competition (./release.ts). */
    onUse(f: (competitionId: string) => void): void {
      used.push(f);
    },

    /**
     * Drops a competition's entry but its final scores, which stay as scores restored at a start
     * do (`restore`), and what `onDrop` keeps beside them; false, leaving everything, while its
     * settings or a computation of its scores is under way.
     */
    release(competitionId: string): boolean {
      const entry = cache.get(competitionId);
      if (!entry) return true;
      const competition = entry.competition.get();
      if (competition instanceof Promise) return false;
      for (const s of entry.byStages.values()) if (s.get() instanceof Promise) return false;
      const final = api.finalInHand(competitionId);
      cache.delete(competitionId);
      for (const f of dropped) f(competitionId, true);
      // Its scoring states hold the in-memory pairs' entries: they go with them.
      scoring.forget(competitionId);
      if (final && !final.stale) api.restore(competition, final.scores);
      return true;
    },

    /** The scores of a stage set (default the competition's final stages); not found for no competition. */
    scored(competitionId: string, stages: Stage[] | undefined): Maybe<Scored> {
      // A competition's first read after the start takes its saved scores where they are current.
      // Before catching up with other processes: the row counts the competition as told up to it.
      const restoring = saved?.take(competitionId, restoreUnlessHeld);
      if (restoring) return restoring.then(() => caughtUp(competitionId, stages));
      return caughtUp(competitionId, stages);
    },

    /** The kept scores of a stage set if they are computed and current; starts nothing. */
    inHand(competitionId: string, stages: Stage[]): Scored | undefined {
      const s = cache.get(competitionId)?.byStages.get(stages.join(','))?.get();
      return s instanceof Promise ? undefined : s;
    },

    /**
     * Restores a competition's saved scores where its row is current and it has no entry yet;
     * computes nothing. Settles once the row is consulted.
     */
    async restoreSaved(competitionId: string): Promise<void> {
      await saved?.take(competitionId, restoreUnlessHeld);
    },

    /** A competition's scores of its final stages if they are computed and current; starts nothing. */
    finalInHand(competitionId: string): Scored | undefined {
      const entry = cache.get(competitionId);
      const competition = entry?.competition.get();
      if (!competition || competition instanceof Promise) return undefined;
      const s = entry!.byStages.get(finalKey(competition))?.get();
      return s instanceof Promise ? undefined : s;
    },

    /** `finalInHand`, as a read of the competition (told to `onUse`) when they are. */
    readFinalInHand(competitionId: string): Scored | undefined {
      const s = api.finalInHand(competitionId);
      if (s) use(competitionId);
      return s;
    },

    /** The competitions with an entry. */
    competitionIds: () => cache.keys(),

    /** A cache entry of scores saved at the last shutdown; its input is read when first needed. */
    restore(competition: CompetitionSettings, scores: CompetitionScores): void {
      let basis: Settled<Basis> | undefined;
      const scored: Scored = {
        competition,
        scores,
        basis: () => {
          const made = (basis ??= entryOf(
            loadInput(competition, scores.stages).then((input) => ({
              scores: scored.stale ? scoring.compute(competition.id, input) : scores,
              input,
            })),
            () => {
              if (basis === made) basis = undefined;
            },
          ));
          return made.get();
        },
        basisInHand: () => {
          const held = basis?.get();
          return held instanceof Promise ? undefined : held;
        },
      };
      const byStages = new Map([[scores.stages.join(','), new Settled(Promise.resolve(scored))]]);
      cache.set(competition.id, { competition: new Settled(Promise.resolve(competition)), byStages });
    },
  };
  function caughtUp(competitionId: string, stages: Stage[] | undefined): Maybe<Scored> {
    // On PostgreSQL, first catch up with writes other processes acknowledged (src/db/contract.ts, capability freshness).
    const fresh = store.capabilities.freshness;
    if (fresh) return fresh.sync(competitionId).then(() => scoredHere(competitionId, stages));
    return scoredHere(competitionId, stages);
  }

  /** Restores saved scores unless the competition has an entry already (a read that came first). */
  function restoreUnlessHeld(competition: CompetitionSettings, scores: CompetitionScores): boolean {
    if (cache.has(competition.id)) return false;
    api.restore(competition, scores);
    return true;
  }
  return api;
}

export type ScoreCache = ReturnType<typeof scoreCache>;
