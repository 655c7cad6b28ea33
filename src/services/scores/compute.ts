// The one place a competition's scores are computed from its scoring input: the leaderboard and
// weights, with per-miner sums only. Every cold read, every restored entry a write made stale and
// every snapshot whose input the cache does not hold comes through here, so a different way of
// computing them (an incremental one) replaces this function and nothing else.
import { scoreCompetition } from '../../scoring/index.js';
import type { CompetitionInput, CompetitionScores } from '../../scoring/types.js';

export function computeScores(input: CompetitionInput): CompetitionScores {
  // Per-task scores are computed when a breakdown is asked for (./breakdowns.ts), from the same
  // input: a miner's task scores depend on its runs and the tasks' baselines alone.
  return scoreCompetition(input, { keepTasks: false });
}
