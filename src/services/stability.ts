// The stability report (SPEC 12): how each kind of reworded criterion fares against the unchanged
// ones. Its input is read from the store (a scan of the graded runs) once per scoring input, that
// is until a write, and its body is kept with the scores like every score read. The scan comes in
// steps, one turn of the event loop each, so other requests go on while it runs.
import type { Store } from '../db/store.js';
import { stabilityReport, type CriterionTally } from '../scoring/stabilityReport.js';
import type { Stage } from '../scoring/types.js';
import type { ScoresService } from './scores/index.js';

export function stabilityService(scores: ScoresService, store: Store) {
  return {
    read(competitionId: string, stages: Stage[] | undefined) {
      return scores.fromInput(competitionId, stages, 'criteria-report', async (input) => {
        const criteria = await store.judges.stabilityCriteria(competitionId, input.stages);
        const tallies: CriterionTally[] = [];
        for await (const step of store.judges.stabilityTallies(competitionId, input.stages)) {
          for (const t of step) tallies.push(t);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return { competitionId, stages: input.stages, groups: stabilityReport(criteria, tallies) };
      });
    },
  };
}
