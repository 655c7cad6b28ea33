// Scores an input document with the scoring core and builds the bodies snapshots and the live
// reads publish (./bodies.ts): `swe-scoring score`, `verify` and POST /v1/score come through here.
import { aggregateRuns, EMPTY_BASELINE } from '../scoring/aggregateRuns.js';
import { scoreCompetition } from '../scoring/scoreCompetition.js';
import { normalizeStages } from '../scoring/stages.js';
import type { CompetitionInput, Stage } from '../scoring/types.js';
import { scoreBodies } from './bodies.js';
import { metagraphDigest } from './metagraph.js';
import type { InputDocument } from './inputSchemas.js';

/** The core's input for a stage set: the same sums the server keeps, from the document's runs. */
export function documentInput(doc: InputDocument, stages: readonly Stage[]): CompetitionInput {
  const { competition: c } = doc;
  const runs = doc.runs.map((r) => ({ ...r, hotkey: r.minerHotkey }));
  const { baselines, minerTasks } = aggregateRuns(runs, c.tokenWeights);
  const excluded = new Set(c.excluded.miners);
  return {
    tasks: doc.tasks.map((t) => ({
      id: t.id,
      stage: t.stage,
      complexity: t.complexity,
      plannedRuns: t.plannedRuns,
      baseline: baselines.get(t.id) ?? { ...EMPTY_BASELINE },
    })),
    miners: c.miners.map((hotkey) => ({ hotkey, excluded: excluded.has(hotkey) })),
    minerTasks,
    stages: [...stages],
    burnRatio: c.burnRatio,
  };
}

/**
 * `{leaderboard, weights}` for the stage set (default the competition's final stages), and `chain`,
 * the weights on chain, when the document carries a metagraph.
 */
export function scoreDocument(doc: InputDocument, stages?: readonly Stage[]) {
  const chosen = normalizeStages(stages ?? doc.competition.finalStages) ?? [];
  const scores = scoreCompetition(documentInput(doc, chosen), { keepTasks: false });
  const { metagraph } = doc.competition;
  return scoreBodies(doc.competition.id, scores, metagraph && { value: metagraph, digest: metagraphDigest(metagraph) });
}
