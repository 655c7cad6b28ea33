// Plain value types shared by the scoring core and its callers.
// The core imports nothing but this folder: no I/O, no clock, no state.

export const STAGES = ['screener_1', 'screener_2', 'evaluation'] as const;
export type Stage = (typeof STAGES)[number];

export const COMPLEXITIES = ['short', 'medium', 'long'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

export type Zone = 'penalty' | 'maintain' | 'bonus' | 'excluded';
export type Pool = 'main' | 'hard_boost' | 'excluded';

/** Raw token counts of one run; any may be missing (SPEC 2). */
export interface TokenCounts {
  input?: number | null;
  cachedInput?: number | null;
  output?: number | null;
}

export interface TokenWeights {
  input: number;
  cachedInput: number;
  output: number;
}

/**
 * A task's baseline runs, pre-aggregated. `resolvedTokenSum` / `resolvedTokenCount` cover only
 * resolved runs whose weighted count is valid (SPEC 2, 3).
 */
export interface BaselineSummary {
  runs: number;
  resolved: number;
  resolvedTokenSum: number;
  resolvedTokenCount: number;
}

/**
 * One miner's runs on one task, pre-aggregated. `tokenSum` / `tokenCount` cover every run whose
 * weighted count is valid, resolved or not (SPEC 3, T_A).
 */
export interface MinerTaskSummary {
  taskId: string;
  hotkey: string;
  runs: number;
  resolved: number;
  tokenSum: number;
  tokenCount: number;
}

export interface ScoringTask {
  id: string;
  stage: Stage;
  complexity: Complexity | null;
  plannedRuns: number | null;
  baseline: BaselineSummary;
}

export interface ScoringMiner {
  hotkey: string;
  excluded: boolean;
}

/**
 * A list read in order or at a place, never changed: an array, or the storage's list in chunks
 * (src/db/chunkedList.ts), whose versions share what a write did not change.
 */
export interface EntryList<T> extends Iterable<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

/** Everything needed to score one competition for one stage set. */
export interface CompetitionInput {
  tasks: ScoringTask[];
  miners: ScoringMiner[];
  minerTasks: EntryList<MinerTaskSummary>;
  stages: Stage[];
  burnRatio: number;
}

/** SPEC 3 inputs of one (task, miner). */
export interface TaskInputs {
  x: number;
  y: number;
  n: number;
  t: number;
  baselineTokens: number | null;
  minerTokens: number | null;
  r: number;
}

/** SPEC 4 result of one (task, miner). `weight` is x^(1/3) in pool main, else null. */
export interface TaskScore extends TaskInputs {
  taskId: string;
  hotkey: string;
  stage: Stage;
  complexity: Complexity | null;
  runs: number;
  zone: Zone;
  pool: Pool;
  score: number | null;
  weight: number | null;
  hardBoostContribution: number | null;
}

/** SPEC 5 aggregate; every number is null when nothing is scored. */
export interface MinerAggregate {
  normalizedScore: number | null;
  rawTotal: number | null;
  mainScore: number | null;
  hardBoost: number | null;
  taskCounts: { main: number; hardBoost: number; excluded: number };
}

export type GroupScores = Partial<Record<Complexity, number>>;

export interface MinerScore extends MinerAggregate {
  hotkey: string;
  excluded: boolean;
  rank: number | null;
  groupScores: GroupScores;
  runs: number;
  resolvedRuns: number;
  /** resolved runs / runs over this miner's runs in the chosen stages (SPEC 7); null when none. */
  resolveRate: number | null;
  incentive: { rawWeight: number; finalWeight: number };
  /** The (task, miner) scores of every task this miner ran in the chosen stages, by task id. */
  tasks: TaskScore[];
}

export interface LayerElement {
  /** Group names, or ['overall'] when no group is present (SPEC 6). */
  subset: string[];
  winners: string[];
  winningScore: number | null;
}

export interface Layer {
  subsetSize: number;
  layerWeight: number;
  elementWeight: number;
  elements: LayerElement[];
}

export interface WeightsResult {
  groups: Complexity[];
  layers: Layer[];
  rawWeights: Record<string, number>;
  finalWeights: Record<string, number>;
  burnRatio: number;
  burnWeight: number;
}

export interface BaselineRate {
  runs: number;
  resolved: number;
  resolveRate: number | null;
}

export interface CompetitionScores {
  stages: Stage[];
  /** Leaderboard order (SPEC 5): ranked miners first, then unranked, each by hotkey. */
  miners: MinerScore[];
  weights: WeightsResult;
  baseline: BaselineRate;
}

// SPEC 7: QnA grading.
export type Verdict = 'YES' | 'NO';
export type Polarity = 'positive' | 'negative';

export interface Criterion {
  id: string;
  type: Polarity;
}

export interface CriterionVotes {
  criterionId: string;
  votes: { verdict: Verdict }[];
}

export interface CriterionGrade {
  criterionId: string;
  yes: number;
  no: number;
  verdict: Verdict;
  met: boolean;
  split: boolean;
}

export type RubricProblem =
  | { kind: 'missing'; criterionId: string }
  | { kind: 'unknown'; criterionId: string }
  | { kind: 'repeated'; criterionId: string }
  | { kind: 'vote_count'; criterionId: string; expected: number; actual: number };

export type RubricGrade =
  { ok: true; resolved: boolean; criteria: CriterionGrade[] } | { ok: false; problem: RubricProblem };

// Additions (backward compatible): inputs of the helpers that start from raw runs and from
// miner scores rather than from the storage layer's pre-aggregated sums.

/** One run as the scoring core sees it, with its raw token counts (SPEC 2; null when unknown). */
export interface ScoringRun {
  taskId: string;
  kind: 'baseline' | 'miner';
  /** Required for miner runs; a miner run without a hotkey cannot be attributed and is ignored. */
  hotkey?: string | null;
  resolved: boolean;
  tokens: TokenCounts | null;
}

/** What the incentive contests (SPEC 6) need to know about one participating miner. */
export interface Contestant {
  hotkey: string;
  normalizedScore: number | null;
  groupScores: GroupScores;
}
