// The stability report (SPEC 12): how each kind of reworded criterion fares against the unchanged
// ones. Its input is read from the store (a scan of the graded runs) once per scoring input, that
// is until a write, and its body is kept with the scores like every score read.
import type { Store } from '../db/contract.js';
import { stabilityReport } from '../scoring/stabilityReport.js';
import type { Stage } from '../scoring/types.js';
import type { ScoresService } from './scores/index.js';

export function stabilityService(scores: ScoresService, store: Store) {
  return {
    read(competitionId: string, stages: Stage[] | undefined) {
      return scores.fromInput(competitionId, stages, 'criteria-report', async (input) => {
        const { criteria, tallies } = await store.judges.stabilityInput(competitionId, input.stages);
        return { competitionId, stages: input.stages, groups: stabilityReport(criteria, tallies) };
      });
    },
  };
}
