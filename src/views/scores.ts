// Response bodies of the score reads, built from the scoring core's output. Pure: the live
// reads, snapshots and offline scoring (`swe-scoring score`) all build their JSON here, so the
// same scores give the same bytes wherever they are computed.
import type { CompetitionScores, MinerScore, TaskScore } from '../scoring/types.js';

export function leaderboardEntry(m: MinerScore) {
  const { tasks: _tasks, ...entry } = m;
  return entry;
}

/** The leaderboard's fields before its `miners` list. */
export function leaderboardHead(competitionId: string, scores: CompetitionScores) {
  return { competitionId, stages: scores.stages, baseline: scores.baseline };
}

export function leaderboardBody(competitionId: string, scores: CompetitionScores) {
  return { ...leaderboardHead(competitionId, scores), miners: scores.miners.map(leaderboardEntry) };
}

export function weightsBody(competitionId: string, scores: CompetitionScores) {
  return { competitionId, stages: scores.stages, ...scores.weights };
}

export function minerTaskView(t: TaskScore) {
  return {
    taskId: t.taskId,
    stage: t.stage,
    complexity: t.complexity,
    runs: t.runs,
    x: t.x,
    y: t.y,
    n: t.n,
    threshold: t.t,
    baselineTokens: t.baselineTokens,
    minerTokens: t.minerTokens,
    r: t.r,
    zone: t.zone,
    pool: t.pool,
    score: t.score,
    weight: t.weight,
    hardBoostContribution: t.hardBoostContribution,
  };
}
