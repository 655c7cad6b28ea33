import { ascending } from './ascending.js';
import { addRunTokens, emptyTokenSums, weightedSum, type TokenSums } from './tokenSums.js';
import type { BaselineSummary, MinerTaskSummary, ScoringRun, TokenWeights } from './types.js';
import { DEFAULT_TOKEN_WEIGHTS } from './weightedTokens.js';

/** The summary of a task that has no baseline run yet (SPEC 3: such a task is not scored). */
export const EMPTY_BASELINE: Readonly<BaselineSummary> = Object.freeze({
  runs: 0,
  resolved: 0,
  resolvedTokenSum: 0,
  resolvedTokenCount: 0,
});

interface Totals {
  runs: number;
  resolved: number;
  tokens: TokenSums;
}

function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

const noTotals = (): Totals => ({ runs: 0, resolved: 0, tokens: emptyTokenSums() });

/**
 * Turns raw runs into the sums the storage layer keeps (SPEC 3), by the same rule and with the
 * same float operations: per task, its baseline runs with the raw token sums of the resolved
 * ones (T_B); per (task, miner), the miner's runs with the raw token sums of all of them (T_A);
 * each sum weighted once at the end (`weightedSum`), so the result is bit-identical to the
 * server's and independent of run order. A run whose weighted count is invalid or zero still
 * counts as a run but stays out of token sums and counts. A miner run without a hotkey cannot
 * be attributed and is ignored. Summaries come sorted by task id, then hotkey.
 */
export function aggregateRuns(
  runs: readonly ScoringRun[],
  weights: TokenWeights = DEFAULT_TOKEN_WEIGHTS,
): { baselines: Map<string, BaselineSummary>; minerTasks: MinerTaskSummary[] } {
  const baseline = new Map<string, Totals>();
  const miner = new Map<string, Map<string, Totals>>();
  for (const run of runs) {
    let t: Totals;
    if (run.kind === 'baseline') t = entry(baseline, run.taskId, noTotals);
    else if (run.hotkey)
      t = entry(
        entry(miner, run.taskId, () => new Map<string, Totals>()),
        run.hotkey,
        noTotals,
      );
    else continue;
    t.runs += 1;
    if (run.resolved) t.resolved += 1;
    addRunTokens(t.tokens, run, weights);
  }

  const baselines = new Map<string, BaselineSummary>();
  for (const [taskId, { runs: count, resolved, tokens }] of baseline) {
    const resolvedTokenSum = weightedSum(tokens, weights);
    baselines.set(taskId, { runs: count, resolved, resolvedTokenSum, resolvedTokenCount: tokens.count });
  }
  const minerTasks: MinerTaskSummary[] = [];
  for (const [taskId, byMiner] of [...miner].sort((a, b) => ascending(a[0], b[0]))) {
    for (const [hotkey, { runs: count, resolved, tokens }] of [...byMiner].sort((a, b) => ascending(a[0], b[0]))) {
      const tokenSum = weightedSum(tokens, weights);
      minerTasks.push({ taskId, hotkey, runs: count, resolved, tokenSum, tokenCount: tokens.count });
    }
  }
  return { baselines, minerTasks };
}
