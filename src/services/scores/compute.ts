// The one place a competition's scores are computed from its scoring input: the leaderboard and
// weights, with per-miner sums only. Every cold read and every restored entry a write made stale
// comes through `scoresComputer`, which scores incrementally (src/scoring/scoreIncrementally.ts)
// from the scoring state of the last computation of the same competition and stage set, kept
// here across the write that dropped those scores: a cold read after a write costs what the write
// changed (its pairs; every pair of a task whose baseline changed), not the whole competition.
// A snapshot whose input the cache does not hold is scored whole (`computeScores`), keeping nothing.
import { scoreCompetition, scoreIncrementally, type EntryChanges, type ScoringState } from '../../scoring/index.js';
import type { CompetitionInput, CompetitionScores } from '../../scoring/types.js';

// Per-task scores are computed when a breakdown is asked for (./breakdowns.ts), from the same
// input: a miner's task scores depend on its runs and the tasks' baselines alone.

export function computeScores(input: CompetitionInput): CompetitionScores {
  return scoreCompetition(input, { keepTasks: false });
}

/**
 * Computes scores, keeping one scoring state per competition and stage set: a few MB at the
 * reference size, mostly typed arrays (src/scoring/minerRecord.ts); its entries are the in-memory
 * pairs' own objects. A state is only a starting point: the scores always equal `computeScores`
 * of the input, whichever state (or none) they start from, so concurrent computations need no
 * order between them.
 */
export function scoresComputer() {
  const states = new Map<string, Map<string, ScoringState>>();
  return {
    /** The scores of `input`; `changes` (the store's, src/db/pairMirror.ts) spares comparing the pair lists. */
    compute(competitionId: string, input: CompetitionInput, changes?: EntryChanges): CompetitionScores {
      let byStages = states.get(competitionId);
      if (!byStages) states.set(competitionId, (byStages = new Map<string, ScoringState>()));
      const key = input.stages.join(',');
      const { scores, state } = scoreIncrementally(byStages.get(key), input, changes);
      byStages.set(key, state);
      return scores;
    },
    /** Drops a competition's states (./release.ts): its next scores are computed whole. */
    forget(competitionId: string): void {
      states.delete(competitionId);
    },
  };
}
