// The stability report (SPEC 12): how each kind of reworded criterion fares against the unchanged
// ones. Its input is read from the store (a scan of the graded runs, all of one state of the
// competition) once per scoring input, that is until a write, and its body is kept with the scores
// like every score read. The scan comes in steps and the verdicts are summed a slice at a time, a
// turn of the event loop between each, so other requests go on meanwhile.
import type { Store } from '../db/contract.js';
import { stabilitySums } from '../scoring/stabilityReport.js';
import type { Stage } from '../scoring/types.js';
import type { ScoresService } from './scores/index.js';

/** Tallies summed per turn: a few milliseconds. */
const TALLIES_PER_TURN = 8192;

const turn = () => new Promise((resolve) => setImmediate(resolve));

export function stabilityService(scores: ScoresService, store: Store) {
  return {
    read(competitionId: string, stages: Stage[] | undefined) {
      return scores.fromInput(competitionId, stages, 'criteria-report', async (input) => {
        let sums = stabilitySums([]);
        for await (const step of store.judges.stabilityInput(competitionId, input.stages)) {
          if ('criteria' in step) {
            sums = stabilitySums(step.criteria);
            continue;
          }
          for (let i = 0; i < step.tallies.length; i += TALLIES_PER_TURN) {
            sums.add(step.tallies.slice(i, i + TALLIES_PER_TURN));
            await turn();
          }
          await turn();
        }
        return { competitionId, stages: input.stages, groups: sums.groups() };
      });
    },
  };
}
