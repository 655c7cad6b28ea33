// The task detail body: the task, its baseline summary, every miner's score on it and, for a QnA
// task, per-criterion rates. Pure: storage rows and scores in, JSON out.
import type { TaskScore, Stage, Complexity, TokenWeights } from '../scoring/types.js';
import { resolveRate } from '../scoring/index.js';
import { weightedSum } from '../scoring/tokenSums.js';
import type { QnaMeta, TaskRow } from '../db/tasks.js';
import { judgeTitle } from '../qna/judgeTitle.js';

export interface CriterionStats {
  id: string;
  title: string;
  type: string;
  change: string | null;
  graded: number;
  met: number;
  split: number;
}

/** QnA content; without the reference answer unless revealed. */
function qnaView(qna: QnaMeta | null, reveal: boolean) {
  if (!qna || reveal) return qna;
  const { referenceAnswer: _hidden, ...rest } = qna;
  return rest;
}

export function taskDetailBody(
  competitionId: string,
  stages: Stage[],
  task: TaskRow,
  criteria: CriterionStats[],
  scores: TaskScore[],
  w: TokenWeights,
  /** Show the answer key: the reference answer and the criteria's ids and titles. */
  reveal: boolean,
) {
  const sums = {
    count: task.baselineTokenCount,
    input: task.baselineInputSum,
    cached: task.baselineCachedSum,
    output: task.baselineOutputSum,
  };
  const tokenSum = weightedSum(sums, w);
  const miners = scores.map((t) => ({
    hotkey: t.hotkey,
    runs: t.runs,
    y: t.y,
    minerTokens: t.minerTokens,
    r: t.r,
    zone: t.zone,
    pool: t.pool,
    score: t.score,
  }));
  miners.sort((a, b) => (a.hotkey < b.hotkey ? -1 : a.hotkey > b.hotkey ? 1 : 0));
  return {
    competitionId,
    stages,
    id: task.id,
    type: task.type as 'swebench_verified' | 'swe_atlas_qna',
    stage: task.stage as Stage,
    complexity: task.complexity as Complexity | null,
    plannedRuns: task.plannedRuns,
    inStages: (stages as string[]).includes(task.stage),
    answersRevealed: reveal,
    qna: qnaView(task.qna as QnaMeta | null, reveal),
    baseline: {
      runs: task.baselineRuns,
      resolved: task.baselineResolved,
      baselineTokens: task.baselineTokenCount > 0 ? tokenSum / task.baselineTokenCount : null,
      resolveRate: resolveRate(task.baselineResolved, task.baselineRuns),
    },
    miners,
    ...(task.type === 'swe_atlas_qna'
      ? {
          criteria: criteria.map((c, position) => ({
            position,
            ...(reveal ? { id: c.id, title: c.title, judgeTitle: judgeTitle(c.title) } : {}),
            type: c.type as 'positive' | 'negative',
            change: c.change,
            graded: c.graded,
            metRate: resolveRate(c.met, c.graded),
            splitRate: resolveRate(c.split, c.graded),
          })),
        }
      : {}),
  };
}
