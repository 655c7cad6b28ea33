// Maps stored rows and computed scores to response bodies.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import { weightedSum } from '../scoring/tokenSums.js';
import type { TaskScore } from '../scoring/types.js';
import type { TaskRow } from '../db/tasks.js';

export function competitionView(app: FastifyInstance, competitionId: string) {
  const { competition, scores } = app.scores.get(competitionId, undefined);
  return { ...competition, counts: app.repos.competitions.counts(competitionId), baseline: scores.baseline };
}


const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);

export function taskDetailView(app: FastifyInstance, competitionId: string, taskId: string, rawStages: string | undefined) {
  const scored = app.scores.get(competitionId, rawStages);
  const task: TaskRow | null = app.repos.tasks.get(competitionId, taskId);
  if (!task) throw notFound(`task ${taskId} does not exist in competition ${competitionId}`);
  const w = scored.competition.tokenWeights;
  const sums = { count: task.baselineTokenCount, input: task.baselineInputSum, cached: task.baselineCachedSum, output: task.baselineOutputSum };
  const tokenSum = weightedSum(sums, w);
  const criteria = app.repos.tasks.criteria(competitionId, taskId);
  const miners = scored.taskScores(taskId).map((t) => ({
    hotkey: t.hotkey, runs: t.runs, y: t.y, minerTokens: t.minerTokens, r: t.r, zone: t.zone, pool: t.pool, score: t.score,
  }));
  miners.sort((a, b) => (a.hotkey < b.hotkey ? -1 : a.hotkey > b.hotkey ? 1 : 0));
  return {
    competitionId,
    stages: scored.scores.stages,
    id: task.id,
    type: task.type as 'swebench_verified' | 'swe_atlas_qna',
    stage: task.stage as TaskScore['stage'],
    complexity: task.complexity as TaskScore['complexity'],
    plannedRuns: task.plannedRuns,
    inStages: (scored.scores.stages as string[]).includes(task.stage),
    qna: (task.qna ?? null) as never,
    baseline: {
      runs: task.baselineRuns,
      resolved: task.baselineResolved,
      baselineTokens: task.baselineTokenCount > 0 ? tokenSum / task.baselineTokenCount : null,
      resolveRate: rate(task.baselineResolved, task.baselineRuns),
    },
    miners,
    ...(task.type === 'swe_atlas_qna'
      ? {
          criteria: criteria.map((c) => ({
            id: c.id, title: c.title, type: c.type as 'positive' | 'negative', change: c.change, graded: c.graded,
            metRate: rate(c.met, c.graded), splitRate: rate(c.split, c.graded),
          })),
        }
      : {}),
  };
}
