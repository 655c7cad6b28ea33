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
} from '../../src/scoring/index.js';

export interface TaskSpec {
  id: string;
  complexity?: Complexity | null;
  stage?: Stage;
  plannedRuns?: number | null;
}

/**
 * Runs of the baseline (`who` = 'baseline') or of a miner (`who` = its hotkey) on a task, one
 * per letter of `outcomes`: Y resolved, N not. Every run reports `tokens` weighted tokens.
 */
export function runs(taskId: string, who: string, outcomes: string, tokens: number | null = 100): ScoringRun[] {
  return [...outcomes].map((c) => ({
    taskId,
    kind: who === 'baseline' ? 'baseline' : 'miner',
    hotkey: who === 'baseline' ? null : who,
    resolved: c === 'Y',
    weightedTokens: tokens,
  }));
}

export function competition(spec: {
  tasks: TaskSpec[];
  runs: ScoringRun[];
  miners?: ScoringMiner[];
  stages?: Stage[];
  burnRatio?: number;
}): CompetitionInput {
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
