// Coverage (SPEC 13): what still has to be run, from the scoring input the scores service keeps
// in memory (no scan of the runs). Each stage set's pairs are made once per input, that is until
// a write; each page's body is kept with the scores.
import type { CompetitionInput } from '../scoring/types.js';
import type { Store } from '../db/contract.js';
import { coveragePairs, registeredMiners, type CoveragePair } from '../scoring/coverage.js';
import type { Metagraph } from '../snapshots/metagraph.js';
import { coverageBody, cursorOf, type CoverageQuery } from '../views/coverage.js';
import type { Stage } from '../scoring/types.js';
import type { ScoresService } from './scores/index.js';

export function coverageService(scores: ScoresService, store: Store) {
  const made = new WeakMap<CompetitionInput, CoveragePair[]>();
  return {
    read(competitionId: string, stages: Stage[] | undefined, q: CoverageQuery) {
      const key = `coverage:${JSON.stringify([q.miner, q.task, q.missing, q.limit, q.cursor && cursorOf(q.cursor)])}`;
      return scores.fromInput(competitionId, stages, key, async (input, competition) => {
        let pairs = made.get(input);
        if (!pairs) {
          // The metagraph in force names miners with no run yet; recording one is a write, which
          // makes a new input, so the pairs made here follow it.
          const row = await store.metagraphs.latest(competitionId);
          const registered = row ? registeredMiners(JSON.parse(row.document) as Metagraph).map((n) => n.hotkey) : [];
          // Excluding or including a miner again is a write too: the input's miners are read anew.
          pairs = coveragePairs(
            input.tasks,
            input.minerTasks,
            input.stages,
            competition.plannedRuns,
            registered,
            input.miners,
          );
          made.set(input, pairs);
        }
        return coverageBody(competitionId, input.stages, pairs, q);
      });
    },
  };
}
