// Coverage (SPEC 13): what still has to be run, from the scoring input the scores service keeps
// in memory (no scan of the runs). Each stage set's pairs are made once per input, that is until
// a write; each page's body is kept with the scores.
import type { CompetitionInput } from '../scoring/types.js';
import { coveragePairs, type CoveragePair } from '../scoring/coverage.js';
import { coverageBody, cursorOf, type CoverageQuery } from '../views/coverage.js';
import type { Stage } from '../scoring/types.js';
import type { ScoresService } from './scores.js';

export function coverageService(scores: ScoresService) {
  const made = new WeakMap<CompetitionInput, CoveragePair[]>();
  return {
    read(competitionId: string, stages: Stage[] | undefined, q: CoverageQuery) {
      const key = `coverage:${JSON.stringify([q.miner, q.task, q.missing, q.limit, q.cursor && cursorOf(q.cursor)])}`;
      return scores.fromInput(competitionId, stages, key, (input, competition) => {
        let pairs = made.get(input);
        if (!pairs)
          made.set(
            input,
            (pairs = coveragePairs(input.tasks, input.minerTasks, input.stages, competition.plannedRuns)),
          );
        return coverageBody(competitionId, input.stages, pairs, q);
      });
    },
  };
}
