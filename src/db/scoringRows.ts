// The scoring input's rows as both engines read them (src/db/scoringInput.ts and its PostgreSQL
// twin), as arrays in the column order of their queries (SQLite's booleans are 0/1), mapped to
// the scoring core's plain values. Token sums are stored as raw integer sums, weighted here once
// (the core's weightedSum).
import { weightedSum } from '../scoring/tokenSums.js';
import type { Complexity, MinerTaskSummary, ScoringMiner, ScoringTask, Stage, TokenWeights } from '../scoring/types.js';

/** id, stage, complexity, planned_runs, baseline_runs, baseline_resolved, baseline_token_count, and the three sums. */
export const taskEntry = (r: unknown[], w: TokenWeights): ScoringTask => ({
  id: r[0] as string,
  stage: r[1] as Stage,
  complexity: r[2] as Complexity | null,
  plannedRuns: r[3] as number | null,
  baseline: {
    runs: r[4] as number,
    resolved: r[5] as number,
    resolvedTokenCount: r[6] as number,
    resolvedTokenSum: weightedSum(
      { count: r[6] as number, input: r[7] as number, cached: r[8] as number, output: r[9] as number },
      w,
    ),
  },
});

/** hotkey, excluded. */
export const minerEntry = (r: unknown[]): ScoringMiner => ({
  hotkey: r[0] as string,
  excluded: r[1] === 1 || r[1] === true,
});

/** task_id, hotkey, runs, resolved, token_count, and the three sums. */
export const minerTaskEntry = (r: unknown[], w: TokenWeights): MinerTaskSummary => ({
  taskId: r[0] as string,
  hotkey: r[1] as string,
  runs: r[2] as number,
  resolved: r[3] as number,
  tokenCount: r[4] as number,
  tokenSum: weightedSum(
    { count: r[4] as number, input: r[5] as number, cached: r[6] as number, output: r[7] as number },
    w,
  ),
});
