// The bodies a competition's scores are published as: the leaderboard, the weights and, under a
// metagraph, the weights on chain. Pure, and the one function for every place that publishes
// computed scores whole: the offline `score` and `verify` and POST /v1/score (./scoreDocument.ts),
// and snapshots (src/services/snapshots.ts). The live reads show the same bodies, the leaderboard
// with its paging field `total` added around them (src/http/leaderboardPages.ts).
import type { CompetitionScores } from '../scoring/types.js';
import { chainBody } from '../views/chain.js';
import { leaderboardBody, weightsBody } from '../views/scores.js';
import type { Metagraph } from './metagraph.js';

/** A metagraph with its digest (SPEC 11), as recorded or as carried by an input document. */
export interface DigestedMetagraph {
  value: Metagraph;
  digest: string;
}

/** The weights on chain of `scores` under a metagraph. */
export function chainOf(competitionId: string, scores: CompetitionScores, metagraph: DigestedMetagraph) {
  const source = {
    competitionId,
    stages: scores.stages,
    weights: scores.weights,
    miners: scores.miners.map((m) => m.hotkey),
  };
  return chainBody(source, metagraph.value, metagraph.digest);
}

/** `{leaderboard, weights}`, and `chain` when there is a metagraph. */
export function scoreBodies(competitionId: string, scores: CompetitionScores, metagraph?: DigestedMetagraph | null) {
  return {
    leaderboard: leaderboardBody(competitionId, scores),
    weights: weightsBody(competitionId, scores),
    ...(metagraph ? { chain: chainOf(competitionId, scores, metagraph) } : {}),
  };
}
