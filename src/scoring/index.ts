// Public API of the scoring core (SPEC 2–11). Pure functions over plain values: no I/O, no
// clock, no state.
export * from './types.js';
export { clamp } from './clamp.js';
export { ascending } from './ascending.js';
export { nearlyEqual, TIE_EPSILON } from './nearlyEqual.js';
export { weightedTokens, isValidTokens, DEFAULT_TOKEN_WEIGHTS } from './weightedTokens.js';
export { aggregateRuns, EMPTY_BASELINE } from './aggregateRuns.js';
export {
  addRunTokens,
  emptyTokenSums,
  entersTokenMean,
  weightedSum,
  type TokenRun,
  type TokenSums,
} from './tokenSums.js';
export { taskInputs, meanTokens, compressionRatio, taskRuns, threshold, type RunTotals } from './taskInputs.js';
export { taskZone, taskPool, zoneScore } from './zoneScore.js';
export { taskScore, taskScorer } from './taskScore.js';
export { minerAggregate, type ScoredTask } from './minerAggregate.js';
export { rank, type Rankable, type Ranked } from './rank.js';
export { combinations } from './combinations.js';
export { layers, LAYER_WEIGHTS, OVERALL, type LayerPlan } from './layers.js';
export { contestScore } from './contestScore.js';
export { winners, type ContestEntry } from './winners.js';
export { incentives } from './incentives.js';
export { gradeRubric } from './gradeRubric.js';
export { resolveRate } from './resolveRate.js';
export { DEFAULT_FINAL_STAGES, isStage, normalizeStages, parseStages, tasksInStages } from './stages.js';
export { scoreCompetition } from './scoreCompetition.js';
export { scoreIncrementally, type EntryChanges, type ScoringState } from './scoreIncrementally.js';
export {
  agreement,
  AGREEMENT_MIN_DELTA,
  AGREEMENT_MIN_SHARED,
  type Agreement,
  type ValidatorPairRuns,
} from './agreement.js';
export { chainWeights, type ChainNeuron, type ChainWeights } from './chainWeights.js';
export { emitWeights, roundHalfEven, U16_MAX } from './emitWeights.js';
export { weightLimits, type WeightLimits, type WeightLimitSettings } from './weightLimits.js';
export { RULES_VERSION } from './rulesVersion.js';
