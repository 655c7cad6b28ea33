// Builders for scoring tests: competitions written as raw runs, the way SPEC.md talks about
// them, turned into the pre-aggregated input the server feeds the core.
import { aggregateRuns, EMPTY_BASELINE } from '../../src/scoring/index.js';
import type {
  CompetitionInput,
  Complexity,
  MinerTaskSummary,
  ScoringMiner,
  ScoringRun,
  ScoringTask,
  Stage,
  TokenCounts,
} from '../../src/scoring/index.js';

export interface TaskSpec {
  id: string;
  complexity?: Complexity | null;
  stage?: Stage;
  plannedRuns?: number | null;
}

/**
 * Raw counts whose weighted count under the default weights (1 / 0.1 / 3) is exactly `weighted`:
 * that many non-cached input tokens and nothing else. null stays null (no counts reported).
 */
export function countsOf(weighted: number | null): TokenCounts | null {
  return weighted === null ? null : { input: weighted, cachedInput: 0, output: 0 };
}

/**
 * Runs of the baseline (`who` = 'baseline') or of a miner (`who` = its hotkey) on a task, one
 * per letter of `outcomes`: Y resolved, N not. Every run reports `tokens` weighted tokens
 * (under the default weights; see `countsOf`).
 */
export function runs(taskId: string, who: string, outcomes: string, tokens: number | null = 100): ScoringRun[] {
  return [...outcomes].map((c) => ({
    taskId,
    kind: who === 'baseline' ? 'baseline' : 'miner',
    hotkey: who === 'baseline' ? null : who,
    resolved: c === 'Y',
    tokens: countsOf(tokens),
  }));
}

/** An input whose entries are a plain array, which a test may change in place. */
export type ArrayInput = CompetitionInput & { minerTasks: MinerTaskSummary[] };

export function competition(spec: {
  tasks: TaskSpec[];
  runs: ScoringRun[];
  miners?: ScoringMiner[];
  stages?: Stage[];
  burnRatio?: number;
}): ArrayInput {
  const { baselines, minerTasks } = aggregateRuns(spec.runs);
  const tasks: ScoringTask[] = spec.tasks.map((t) => ({
    id: t.id,
    stage: t.stage ?? 'evaluation',
    complexity: t.complexity ?? null,
    plannedRuns: t.plannedRuns ?? null,
    baseline: baselines.get(t.id) ?? { ...EMPTY_BASELINE },
  }));
  return {
    tasks,
    miners: spec.miners ?? [],
    minerTasks,
    stages: spec.stages ?? ['screener_2', 'evaluation'],
    burnRatio: spec.burnRatio ?? 0,
  };
}

/**
 * One task and one miner's summary on it, straight from SPEC 3 quantities: `n` runs on each
 * side (so n is the run count), x and y resolved, and token means T_B, T_A (null: none valid).
 */
export function pair(
  x: number,
  y: number,
  n: number,
  tb: number | null = 100,
  ta: number | null = 100,
): { task: ScoringTask; miner: MinerTaskSummary } {
  return {
    task: {
      id: 't',
      stage: 'evaluation',
      complexity: null,
      plannedRuns: null,
      baseline: { runs: n, resolved: x, resolvedTokenSum: tb ?? 0, resolvedTokenCount: tb === null ? 0 : 1 },
    },
    miner: { taskId: 't', hotkey: 'm', runs: n, resolved: y, tokenSum: ta ?? 0, tokenCount: ta === null ? 0 : 1 },
  };
}
