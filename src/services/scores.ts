// Score reads. A competition's scores are computed from its aggregates on the first read of a
// stage set and kept, with every response body serialized from them, until the storage layer
// reports a write to that competition (src/db/events.ts): a read after an acknowledged write never
// sees the old scores, and no write path has to remember to invalidate anything.
import { isDeepStrictEqual } from 'node:util';
import type { WriteEvent } from '../db/events.js';
import type { Store } from '../db/contract.js';
import type { CompetitionSettings } from '../db/competitions.js';
import { conflict, notFound } from '../errors.js';
import { scoreCompetition } from '../scoring/index.js';
import type { CompetitionInput, CompetitionScores, Stage, TaskScore } from '../scoring/types.js';
import type { SavedScores } from '../db/contract.js';
import { leaderboardBody, leaderboardEntry, leaderboardHead, minerTaskView, weightsBody } from '../views/scores.js';
import { chainBody } from '../views/chain.js';
import type { Metagraph } from '../snapshots/metagraph.js';
import { taskDetailBody } from '../views/task.js';
import { validatorsBody, type ValidatorsTable } from '../views/validators.js';
import { jsonBody, type Body } from './body.js';
import { leaderboardPages, type LeaderboardPage, type LeaderboardPages } from './leaderboardPages.js';
import { revealsAnswers, type Principal } from './principal.js';
import { recentBodies } from './recentBodies.js';
import { scoringCodeIdentity } from './scoringCode.js';
import { chain, Settled, type Maybe } from './settled.js';

/**
 * Bytes of miner, task and validators bodies kept over every competition (src/services/
 * recentBodies.ts); the leaderboard and weights, which every dashboard reads, are always kept.
 */
const KEPT_BODY_BYTES = 8 * 1024 * 1024;

interface Basis {
  scores: CompetitionScores;
  input: CompetitionInput;
}

interface Scored {
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
  /** Serialized bodies by read and argument; dropped with the entry. */
  bodies: Map<string, Settled<Body>>;
  /** The leaderboard and its pages, made on the first leaderboard read. */
  leaderboard?: LeaderboardPages;
}

export function scoresService(store: Store, observe: (seconds: number) => void = () => {}) {
  // Per competition: its settings, read once, and the scores of each stage set asked for. Entries
  // are promises that keep their values (./settled.ts): concurrent first reads share one
  // computation, and a warm read runs without waiting. A write drops the competition's entry (a
  // computation still running then finishes for the readers that came before the write).
  const cache = new Map<
    string,
    { competition: Settled<CompetitionSettings>; byStages: Map<string, Settled<Scored>> }
  >();
  const recent = recentBodies<Settled<Body>>(KEPT_BODY_BYTES);
  /** Each scores' validators table (`validators`), dropped with them. */
  const tables = new WeakMap<Scored, Settled<ValidatorsTable>>();
  store.listeners.add((event) => {
    for (const s of cache.get(event.competitionId)?.byStages.values() ?? []) {
      const value = s.get();
      if (!(value instanceof Promise)) value.stale = true;
    }
    cache.delete(event.competitionId);
    recent.drop(event.competitionId);
  });

  /**
   * Competitions whose in-memory pairs are being filled after a start from saved scores (`prepare`):
   * a read of their input waits for it rather than reading every pair at once.
   */
  const preparing = new Map<string, Promise<void>>();
  let stopPreparing = false;
  let prepared: Promise<void> = Promise.resolve();

  async function loadInput(competition: CompetitionSettings, stages: Stage[]): Promise<CompetitionInput> {
    await preparing.get(competition.id);
    const loaded = await store.scoringInput.load(competition.id, competition.tokenWeights);
    return { ...loaded, stages, burnRatio: competition.burnRatio };
  }

  async function compute(competition: CompetitionSettings, stages: Stage[]): Promise<Scored> {
    const started = process.hrtime.bigint();
    const input = await loadInput(competition, stages);
    // The leaderboard keeps only per-miner sums; per-task scores are computed when a breakdown
    // is asked for, from the same input: a miner's task scores depend on its runs and the
    // tasks' baselines alone, never on other miners.
    const scores = scoreCompetition(input, { keepTasks: false });
    observe(Number(process.hrtime.bigint() - started) / 1e9);
    const basis = { scores, input };
    return { competition, basis: () => basis, basisInHand: () => basis, scores, bodies: new Map() };
  }

  /** A cache entry of scores saved at the last shutdown; its input is read when first needed. */
  function restore(competition: CompetitionSettings, scores: CompetitionScores): void {
    let basis: Settled<Basis> | undefined;
    const scored: Scored = {
      competition,
      scores,
      bodies: new Map(),
      basis: () => {
        const made = (basis ??= entryOf(
          loadInput(competition, scores.stages).then((input) => ({
            scores: scored.stale ? scoreCompetition(input, { keepTasks: false }) : scores,
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
  }

  /** Fills one competition's in-memory pairs, a page per turn of the event loop; never fails. */
  async function fill(competition: CompetitionSettings): Promise<void> {
    try {
      for await (const _ of store.scoringInput.prepare(competition.id, competition.tokenWeights)) {
        await new Promise((resolve) => setImmediate(resolve));
        if (stopPreparing) return;
      }
    } catch {
      // The pairs are read whole by the competition's next load instead.
    }
  }

  /** A cache entry: keeps its value once computed; `forget` drops it if it fails (unless a write replaced it meanwhile). */
  function entryOf<T>(p: Promise<T>, forget: () => void): Settled<T> {
    p.catch(forget);
    return new Settled(p);
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

  /** The scores of a stage set (default the competition's final stages); not found for no competition. */
  function scored(competitionId: string, stages: Stage[] | undefined): Maybe<Scored> {
    // On PostgreSQL, first catch up with writes other processes acknowledged (src/db/contract.ts).
    const fresh = store.capabilities.freshness;
    if (fresh) return fresh.sync(competitionId).then(() => scoredHere(competitionId, stages));
    return scoredHere(competitionId, stages);
  }

  function scoredHere(competitionId: string, stages: Stage[] | undefined): Maybe<Scored> {
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

  /** A body built once per scores; `kept: 'always'` for the few every dashboard reads, else within the byte budget. */
  function cached(s: Scored, key: string, build: () => unknown, kept: 'always' | 'recent' = 'recent'): Maybe<Body> {
    let body = s.bodies.get(key);
    if (body) recent.touch(body);
    else {
      const made = entryOf(
        Promise.resolve(build()).then((value) => jsonBody(value)),
        () => {
          if (s.bodies.get(key) === made) s.bodies.delete(key);
        },
      );
      s.bodies.set(key, (body = made));
      if (kept === 'recent')
        void made.promise.then(
          (b) => recent.add(s.competition.id, s.bodies, key, made, b),
          () => {},
        );
    }
    return body.get();
  }

  /** The kept scores of `stages` if they were computed from exactly this input and these settings. */
  function keptFor(
    competition: CompetitionSettings,
    loaded: Pick<CompetitionInput, 'tasks' | 'miners' | 'minerTasks'>,
    stages: Stage[],
  ): CompetitionScores | undefined {
    const s = cache.get(competition.id)?.byStages.get(stages.join(','))?.get();
    if (!s || s instanceof Promise) return undefined;
    const held = s.basisInHand();
    const same =
      held !== undefined &&
      held.input.minerTasks === loaded.minerTasks &&
      held.input.burnRatio === competition.burnRatio &&
      isDeepStrictEqual(s.competition.tokenWeights, competition.tokenWeights) &&
      isDeepStrictEqual(held.input.tasks, loaded.tasks) &&
      isDeepStrictEqual(held.input.miners, loaded.miners);
    return same ? held.scores : undefined;
  }

  /**
   * The scores, and of their input the miner's own part (its pairs; every task and miner): enough
   * for its task scores. From the input in hand when there is one. For scores restored at the
   * start whose input is not read yet (its pairs may still be filling, a second or more at 4x the
   * reference competition), the miner's pairs are read straight from the store, a few hundred
   * rows; unless a write came since the scores were saved (`stale`), in which case the whole
   * basis is read, which scores the input it reads. The check follows the read: the two agree.
   */
  async function minerBasis(s: Scored, hotkey: string): Promise<Basis> {
    const inHand = s.basisInHand();
    if (!inHand && !s.stale) {
      const { competition, scores } = s;
      const own = await store.scoringInput.minerInput(competition.id, hotkey, competition.tokenWeights);
      if (!s.stale) return { scores, input: { ...own, stages: scores.stages, burnRatio: competition.burnRatio } };
    }
    const { scores, input } = inHand ?? (await s.basis());
    return { scores, input: { ...input, minerTasks: input.minerTasks.filter((e) => e.hotkey === hotkey) } };
  }

  function taskScores(input: CompetitionInput, taskId: string): TaskScore[] {
    const one = {
      ...input,
      tasks: input.tasks.filter((t) => t.id === taskId),
      minerTasks: input.minerTasks.filter((e) => e.taskId === taskId),
    };
    return scoreCompetition(one).miners.flatMap((m) => m.tasks);
  }

  /** A competition's scores of its final stages if they are computed and current; starts nothing. */
  function finalInHand(competitionId: string): Scored | undefined {
    const entry = cache.get(competitionId);
    const competition = entry?.competition.get();
    if (!competition || competition instanceof Promise) return undefined;
    const s = entry!.byStages.get(competition.finalStages.join(','))?.get();
    return s instanceof Promise ? undefined : s;
  }

  const api = {
    /**
     * The leaderboard and weights of a scoring input read by the caller (a snapshot, in the same
     * transaction as its input). The kept scores when they were computed from that very input (the
     * same (task, miner) list, which the in-memory pairs hand out unchanged until a write changes
     * one, and equal tasks, miners and settings); else computed here and kept nowhere. Kept scores
     * spare the snapshot's transaction, which holds every other read on SQLite, the scoring core's run.
     */
    fresh(
      competition: CompetitionSettings,
      loaded: Pick<CompetitionInput, 'tasks' | 'miners' | 'minerTasks'>,
      stages?: Stage[],
    ) {
      const chosen = stages ?? competition.finalStages;
      let scores = keptFor(competition, loaded, chosen);
      if (!scores) {
        const started = process.hrtime.bigint();
        scores = scoreCompetition(
          { ...loaded, stages: chosen, burnRatio: competition.burnRatio },
          { keepTasks: false },
        );
        observe(Number(process.hrtime.bigint() - started) / 1e9);
      }
      // As parsed from the bodies a read sends, so a snapshot holds exactly what a read would show.
      return {
        leaderboard: JSON.parse(JSON.stringify(leaderboardBody(competition.id, scores))) as unknown,
        weights: JSON.parse(JSON.stringify(weightsBody(competition.id, scores))) as unknown,
      };
    },

    /**
     * Makes every competition's scores for its final stages, and their leaderboard, weights and
     * weights on chain bodies, so the first reads after a start (a deploy, a restart) answer from
     * memory: from the scores saved at the last shutdown where they are current, else computed.
     * Called once before the server listens. The in-memory pairs of the restored competitions are
     * then read in the background (`prepared`), a page per turn of the event loop.
     */
    async warm(): Promise<{ computed: number; restored: number }> {
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
            restore(c, kept.scores);
            restored.push(c);
          }
        }
      } finally {
        store.listeners.delete(note);
      }
      for (const c of all) {
        await api.leaderboard(c.id);
        await api.weights(c.id);
        // A competition without a metagraph has no weights on chain (a 409 for whoever reads them).
        await Promise.resolve(api.chain(c.id)).catch(() => {});
      }
      // One competition at a time; a read of one still being filled waits for it (`loadInput`).
      for (const c of restored) {
        const filling = prepared.then(() => (stopPreparing ? undefined : fill(c)));
        preparing.set(c.id, filling);
        void filling.then(() => {
          if (preparing.get(c.id) === filling) preparing.delete(c.id);
        });
        prepared = filling;
      }
      return { computed: all.length - restored.length, restored: restored.length };
    },

    /**
     * Settles once the in-memory pairs of a competition restored at the start are filled (of every
     * such competition when none is named); at once for the others.
     */
    async prepared(competitionId?: string): Promise<void> {
      await (competitionId === undefined ? prepared : preparing.get(competitionId));
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
      stopPreparing = true;
      await prepared;
      const saving = store.capabilities.savedScores;
      if (!saving) return 0;
      const deadline = performance.now() + budgetMs;
      for (const c of await store.competitions.list()) {
        if (performance.now() > deadline) break;
        await scored(c.id, undefined);
      }
      // Collected in the turn the store records what they stand for (src/db/savedScores.ts).
      return saving.save(scoringCodeIdentity(), () => {
        const entries: SavedScores[] = [];
        for (const competitionId of cache.keys()) {
          const s = finalInHand(competitionId);
          if (s) entries.push({ competitionId, stages: s.scores.stages, scores: s.scores });
        }
        return entries;
      });
    },

    /** The ranked list with its `total`, or a page of it, or the chosen miners (ranks of the full list). */
    leaderboard(competitionId: string, stages?: Stage[], page: LeaderboardPage = { offset: 0 }): Maybe<Body> {
      return chain(scored(competitionId, stages), (s) => {
        s.leaderboard ??= leaderboardPages(
          leaderboardHead(competitionId, s.scores),
          s.scores.miners.map(leaderboardEntry),
        );
        return s.leaderboard.read(page);
      });
    },

    weights(competitionId: string, stages?: Stage[]): Maybe<Body> {
      return chain(scored(competitionId, stages), (s) =>
        cached(s, 'weights', () => weightsBody(competitionId, s.scores), 'always'),
      );
    },

    /**
     * The weights on chain (SPEC 11) under the metagraph in force; a conflict when none is
     * recorded. Kept like the weights: recording a metagraph is a write event, which drops them.
     */
    chain(competitionId: string, stages?: Stage[]): Maybe<Body> {
      return chain(scored(competitionId, stages), (s) =>
        cached(
          s,
          'chain',
          async () => {
            const row = await store.metagraphs.latest(competitionId);
            if (!row)
              throw conflict(
                `competition ${competitionId} has no metagraph: the weights on chain need one (PUT …/metagraph)`,
              );
            const { scores } = s;
            const source = {
              competitionId,
              stages: scores.stages,
              weights: scores.weights,
              miners: scores.miners.map((m) => m.hotkey),
            };
            return chainBody(source, JSON.parse(row.document) as Metagraph, row.digest);
          },
          'always',
        ),
      );
    },

    /**
     * The whole leaderboard, the weights or the weights on chain of the final stages, when a read
     * would answer them at once: the scores computed and current, on storage no other process
     * writes. Undefined otherwise; starts nothing. For answering warm reads ahead of the router
     * (src/routes/keptReads.ts).
     */
    kept(read: 'leaderboard' | 'weights' | 'chain', competitionId: string): Body | undefined {
      // On PostgreSQL every read first catches up with other processes' writes, in the router. It
      // is not done here as well: where the database does not answer, the router's read would then
      // wait a second time, and the 503 would come later than DATABASE_TIMEOUT_MS promises
      // (test/reliability/pgOutage.test.ts).
      if (store.capabilities.freshness) return undefined;
      if (!finalInHand(competitionId)) return undefined;
      const body = api[read](competitionId);
      return body instanceof Promise ? undefined : body;
    },

    /** A miner's leaderboard entry and per-task breakdown; not found when it has no standing. */
    miner(competitionId: string, hotkey: string, stages?: Stage[]): Maybe<Body> {
      const missing = () => notFound(`miner ${hotkey} has no runs and no standing in competition ${competitionId}`);
      return chain(scored(competitionId, stages), (s) => {
        if (!s.scores.miners.some((m) => m.hotkey === hotkey)) throw missing();
        return cached(s, `miner:${hotkey}`, async () => {
          const { scores, input } = await minerBasis(s, hotkey);
          const miner = scores.miners.find((m) => m.hotkey === hotkey);
          if (!miner) throw missing();
          const tasks = scoreCompetition(input).miners.find((m) => m.hotkey === hotkey)?.tasks ?? [];
          return {
            competitionId,
            stages: scores.stages,
            ...leaderboardEntry(miner),
            tasks: tasks.map(minerTaskView),
          };
        });
      });
    },

    /**
     * A body made from the scores' input (coverage), once per key, kept with the scores within the
     * byte budget: a write drops it with them, and it reflects every write acknowledged before.
     */
    fromInput(
      competitionId: string,
      stages: Stage[] | undefined,
      key: string,
      build: (input: CompetitionInput, competition: CompetitionSettings) => unknown,
    ): Maybe<Body> {
      return chain(scored(competitionId, stages), (s) =>
        cached(s, key, async () => build((await s.basis()).input, s.competition)),
      );
    },

    /**
     * Every validator's activity and agreement (SPEC 10) over the stage set, kept with the scores.
     * An object, not a body: the route adds each validator's liveness, which changes without a write.
     */
    validators(competitionId: string, stages?: Stage[]): Maybe<ValidatorsTable> {
      return chain(scored(competitionId, stages), (s) => {
        let table = tables.get(s);
        if (!table) {
          const made = entryOf(
            (async () => {
              const known = new Map((await store.validators.list()).map((v) => [v.id, v]));
              const rows = await store.validators.pairRuns(competitionId, s.scores.stages);
              const excluded = new Set(s.competition.excludedValidators);
              return validatorsBody(competitionId, s.scores.stages, rows, known, excluded);
            })(),
            () => {
              if (tables.get(s) === made) tables.delete(s);
            },
          );
          tables.set(s, (table = made));
        }
        return table.get();
      });
    },

    /**
     * A task with its baseline, every miner's score on it and, for QnA, per-criterion rates. The
     * answer key (reference answer, criterion ids and titles) is shown to the admin, or to
     * everyone when the competition reveals answers.
     */
    task(competitionId: string, taskId: string, stages: Stage[] | undefined, who: Principal | null): Maybe<Body> {
      return chain(scored(competitionId, stages), (s) => {
        const reveal = revealsAnswers(s.competition, who);
        return cached(s, `task:${reveal ? 'full' : 'public'}:${taskId}`, async () => {
          const task = await store.tasks.get(competitionId, taskId);
          if (!task) throw notFound(`task ${taskId} does not exist in competition ${competitionId}`);
          const criteria = await store.tasks.criteria(competitionId, taskId);
          return taskDetailBody(
            competitionId,
            s.scores.stages,
            task,
            criteria,
            taskScores((await s.basis()).input, taskId),
            s.competition.tokenWeights,
            reveal,
          );
        });
      });
    },
  };
  return api;
}

export type ScoresService = ReturnType<typeof scoresService>;
