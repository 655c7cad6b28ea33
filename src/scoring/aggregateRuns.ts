import { ascending } from './ascending.js';
import type { BaselineSummary, MinerTaskSummary, ScoringRun } from './types.js';
import { isValidTokens } from './weightedTokens.js';

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
  tokens: number[];
}

// Sorting the token counts before summing makes each sum independent of run order.
function sum(values: number[]): number {
  values.sort((a, b) => a - b);
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

const noTotals = (): Totals => ({ runs: 0, resolved: 0, tokens: [] });

/**
 * Turns raw runs into the sums the storage layer keeps (SPEC 3): per task, its baseline runs
 * with the tokens of the resolved ones (T_B); per (task, miner), the miner's runs with the
 * tokens of all of them (T_A). A run with an invalid or zero weighted count still counts as a
 * run but is left out of token sums and counts. A miner run without a hotkey cannot be
 * attributed and is ignored. Summaries come sorted by task id, then hotkey.
 */
export function aggregateRuns(runs: readonly ScoringRun[]): {
  baselines: Map<string, BaselineSummary>;
  minerTasks: MinerTaskSummary[];
} {
  const baseline = new Map<string, Totals>();
  const miner = new Map<string, Map<string, Totals>>();
  for (const run of runs) {
    let t: Totals;
    if (run.kind === 'baseline') t = entry(baseline, run.taskId, noTotals);
    else if (run.hotkey) t = entry(entry(miner, run.taskId, () => new Map()), run.hotkey, noTotals);
    else continue;
    t.runs += 1;
    if (run.resolved) t.resolved += 1;
    // T_B averages resolved baseline runs only; T_A averages every miner run.
    const entersMean = run.kind === 'miner' || run.resolved;
    if (entersMean && isValidTokens(run.weightedTokens)) t.tokens.push(run.weightedTokens);
  }

  const baselines = new Map<string, BaselineSummary>();
  for (const [taskId, t] of baseline) {
    const { runs: count, resolved, tokens } = t;
    const resolvedTokenCount = tokens.length;
    baselines.set(taskId, { runs: count, resolved, resolvedTokenSum: sum(tokens), resolvedTokenCount });
  }
  const minerTasks: MinerTaskSummary[] = [];
  for (const [taskId, byMiner] of [...miner].sort((a, b) => ascending(a[0], b[0]))) {
    for (const [hotkey, t] of [...byMiner].sort((a, b) => ascending(a[0], b[0]))) {
      const { runs: count, resolved, tokens } = t;
      const tokenCount = tokens.length;
      minerTasks.push({ taskId, hotkey, runs: count, resolved, tokenSum: sum(tokens), tokenCount });
    }
  }
  return { baselines, minerTasks };
}
