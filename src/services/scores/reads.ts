// The score reads: leaderboard, weights, weights on chain, a miner's and a task's breakdowns,
// validators and views made from the input (coverage), each from the kept scores (./cache.ts).
// Each returns a view (./views.ts); the HTTP layer makes and keeps its bytes.
import type { CompetitionSettings } from '../../db/competitions.js';
import type { Store } from '../../db/contract.js';
import { conflict, notFound } from '../../errors.js';
import type { CompetitionInput, CompetitionScores, Stage } from '../../scoring/types.js';
import type { Metagraph } from '../../snapshots/metagraph.js';
import { chainOf } from '../../snapshots/bodies.js';
import { leaderboardEntry, leaderboardHead, minerTaskView, weightsBody } from '../../views/scores.js';
import { taskDetailBody } from '../../views/task.js';
import { validatorsBody, type ValidatorsTable } from '../../views/validators.js';
import { revealsAnswers, type Principal } from '../principal.js';
import { chain, type Maybe, type Settled } from '../settled.js';
import { minerBasis, minerTaskScores, taskScores } from './breakdowns.js';
import { entryOf, type ScoreCache, type Scored } from './cache.js';
import type { ListPage, RankedList, View } from './views.js';

/** The whole list (the default page): its view is made once per scores. */
const WHOLE: ListPage = Object.freeze({ offset: 0 });

export function scoreReads(store: Store, cache: ScoreCache) {
  /** The view of `key` of these scores. */
  const view = (s: Scored, key: string, value: () => unknown, kept: View['kept'] = 'recent'): View => ({
    competitionId: s.competition.id,
    version: s,
    key,
    kept,
    value,
  });
  /**
   * Each scores' leaderboard entries, made on the first leaderboard read. By the scores themselves,
   * which a release keeps (./cache.ts `release`): the same list then stands for the same body, so
   * the HTTP layer may answer it with the bytes it kept across the release (src/http/viewBodies.ts).
   */
  const lists = new WeakMap<CompetitionScores, RankedList>();
  const listView = (s: Scored, page: ListPage): View => ({
    competitionId: s.competition.id,
    version: s,
    key: 'leaderboard',
    kept: 'always',
    page,
    value: () => {
      let list = lists.get(s.scores);
      if (!list) {
        // The miner scores themselves, each made into its entry only to be serialized: the scoring
        // core hands an unchanged miner's score over as the same object (src/scoring/competitionScores.ts),
        // whose bytes the list before then holds (src/http/leaderboardPages.ts).
        list = {
          head: leaderboardHead(s.competition.id, s.scores),
          entries: s.scores.miners,
          shown: leaderboardEntry as (m: { hotkey: string }) => unknown,
        };
        lists.set(s.scores, list);
      }
      return list;
    },
  });
  /** Each scores' views of the reads without arguments, made once: a warm read allocates none. */
  const plain = new WeakMap<Scored, Map<string, View>>();
  const once = (s: Scored, key: string, make: () => View): View => {
    let made = plain.get(s);
    if (!made) plain.set(s, (made = new Map<string, View>()));
    let v = made.get(key);
    if (!v) made.set(key, (v = make()));
    return v;
  };
  /** Each scores' validators table (`validators`), dropped with them. */
  const tables = new WeakMap<Scored, Settled<ValidatorsTable>>();

  /** The views of the reads without arguments, of given scores: what a warm read answers. */
  const whole = {
    leaderboard: (s: Scored): View => once(s, 'leaderboard', () => listView(s, WHOLE)),
    weights: (s: Scored): View =>
      once(s, 'weights', () => view(s, 'weights', () => weightsBody(s.competition.id, s.scores), 'always')),
    /**
     * The weights on chain (SPEC 11) under the metagraph in force; a conflict when none is
     * recorded. Kept like the weights: recording a metagraph is a write event, which drops them.
     */
    chain: (s: Scored): View =>
      once(s, 'chain', () =>
        view(
          s,
          'chain',
          async () => {
            const competitionId = s.competition.id;
            const row = await store.metagraphs.latest(competitionId);
            if (!row)
              throw conflict(
                `competition ${competitionId} has no metagraph: the weights on chain need one (PUT …/metagraph)`,
              );
            return chainOf(competitionId, s.scores, {
              value: JSON.parse(row.document) as Metagraph,
              digest: row.digest,
            });
          },
          'always',
        ),
      ),
  };

  const reads = {
    /** The ranked list with its `total`, or a page of it, or the chosen miners (ranks of the full list). */
    leaderboard(competitionId: string, stages?: Stage[], page: ListPage = WHOLE): Maybe<View> {
      return chain(cache.scored(competitionId, stages), (s) =>
        page === WHOLE ? whole.leaderboard(s) : listView(s, page),
      );
    },

    weights(competitionId: string, stages?: Stage[]): Maybe<View> {
      return chain(cache.scored(competitionId, stages), whole.weights);
    },

    /** The weights on chain of the metagraph in force (`whole.chain`). */
    chain(competitionId: string, stages?: Stage[]): Maybe<View> {
      return chain(cache.scored(competitionId, stages), whole.chain);
    },

    /**
     * The whole leaderboard, the weights or the weights on chain of the final stages, when their
     * scores are computed and current as far as this process was told. Undefined otherwise;
     * starts nothing. For answering warm reads ahead of the router (src/http/fastReads.ts), which
     * first catches up with other processes' writes where they write too (the store's freshness).
     */
    kept(read: 'leaderboard' | 'weights' | 'chain', competitionId: string): View | undefined {
      const s = cache.readFinalInHand(competitionId);
      return s && whole[read](s);
    },

    /** A miner's leaderboard entry and per-task breakdown; not found when it has no standing. */
    miner(competitionId: string, hotkey: string, stages?: Stage[]): Maybe<View> {
      const missing = () => notFound(`miner ${hotkey} has no runs and no standing in competition ${competitionId}`);
      return chain(cache.scored(competitionId, stages), (s) => {
        if (!s.scores.miners.some((m) => m.hotkey === hotkey)) throw missing();
        return view(s, `miner:${hotkey}`, async () => {
          const { scores, input } = await minerBasis(store, s, hotkey);
          const miner = scores.miners.find((m) => m.hotkey === hotkey);
          if (!miner) throw missing();
          return {
            competitionId,
            stages: scores.stages,
            ...leaderboardEntry(miner),
            tasks: minerTaskScores(input, hotkey).map(minerTaskView),
          };
        });
      });
    },

    /**
     * A view made from the scores' input (coverage), its body kept with the scores within the
     * byte budget: a write drops it with them, and it reflects every write acknowledged before.
     */
    fromInput(
      competitionId: string,
      stages: Stage[] | undefined,
      key: string,
      build: (input: CompetitionInput, competition: CompetitionSettings) => unknown,
    ): Maybe<View> {
      return chain(cache.scored(competitionId, stages), (s) =>
        view(s, key, async () => build((await s.basis()).input, s.competition)),
      );
    },

    /**
     * Every validator's activity and agreement (SPEC 10) over the stage set, kept with the scores.
     * An object, not a body: the route adds each validator's liveness, which changes without a write.
     */
    validators(competitionId: string, stages?: Stage[]): Maybe<ValidatorsTable> {
      return chain(cache.scored(competitionId, stages), (s) => {
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
    task(competitionId: string, taskId: string, stages: Stage[] | undefined, who: Principal | null): Maybe<View> {
      return chain(cache.scored(competitionId, stages), (s) => {
        const reveal = revealsAnswers(s.competition, who);
        return view(s, `task:${reveal ? 'full' : 'public'}:${taskId}`, async () => {
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
  return reads;
}

export type ScoreReads = ReturnType<typeof scoreReads>;
