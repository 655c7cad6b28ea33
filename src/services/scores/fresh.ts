// Scores of an input the caller read itself (a snapshot, in the same transaction as its input):
// the kept ones when they come from that very input, else computed here and kept nowhere.
import { isDeepStrictEqual } from 'node:util';
import type { CompetitionSettings } from '../../db/competitions.js';
import type { CompetitionInput, CompetitionScores, Stage } from '../../scoring/types.js';
import type { ScoreCache } from './cache.js';
import { computeScores } from './compute.js';

type Loaded = Pick<CompetitionInput, 'tasks' | 'miners' | 'minerTasks'>;

export function freshScores(cache: ScoreCache, observe: (seconds: number) => void) {
  /** The kept scores of `stages` if they were computed from exactly this input and these settings. */
  function keptFor(competition: CompetitionSettings, loaded: Loaded, stages: Stage[]): CompetitionScores | undefined {
    const s = cache.inHand(competition.id, stages);
    if (!s) return undefined;
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
   * The scores of a scoring input read by the caller. The kept scores when they
   * were computed from that very input (the same (task, miner) list, which the in-memory pairs
   * hand out unchanged until a write changes one, and equal tasks, miners and settings); else
   * computed here and kept nowhere. Kept scores spare the snapshot's transaction, which holds
   * every other read on SQLite, the scoring core's run.
   */
  return function fresh(competition: CompetitionSettings, loaded: Loaded, stages?: Stage[]) {
    const chosen = stages ?? competition.finalStages;
    let scores = keptFor(competition, loaded, chosen);
    if (!scores) {
      const started = process.hrtime.bigint();
      scores = computeScores({ ...loaded, stages: chosen, burnRatio: competition.burnRatio });
      observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
    return scores;
  };
}
