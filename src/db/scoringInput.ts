// Reads a competition's aggregates as the scoring core's plain input. Raw statements return
// arrays, not objects: this is the one read on the cold-score path and it touches every
// (task, miner) pair.
import type { Db } from './client.js';
import type { Complexity, MinerTaskSummary, ScoringMiner, ScoringTask, Stage, TokenWeights } from '../scoring/types.js';

export function scoringInputRepo(db: Db) {
  const c = db.$client;
  const taskRows = c.prepare(`SELECT id, stage, complexity, planned_runs, baseline_runs, baseline_resolved,
      baseline_token_count, baseline_input_sum, baseline_cached_sum, baseline_output_sum
    FROM tasks WHERE competition_id = ?`).raw();
  const minerTaskRows = c.prepare(`SELECT task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum
    FROM miner_tasks WHERE competition_id = ?`).raw();
  const minerRows = c.prepare('SELECT hotkey, excluded FROM miners WHERE competition_id = ?').raw();

  return {
    load(competitionId: string, w: TokenWeights): { tasks: ScoringTask[]; miners: ScoringMiner[]; minerTasks: MinerTaskSummary[] } {
      // Token sums are stored as raw integer sums; the weighted sum is their weighted total.
      const weighted = (i: number, cached: number, o: number) => w.input * i + w.cachedInput * cached + w.output * o;
      const tasks = (taskRows.all(competitionId) as unknown[][]).map((r): ScoringTask => ({
        id: r[0] as string,
        stage: r[1] as Stage,
        complexity: r[2] as Complexity | null,
        plannedRuns: r[3] as number | null,
        baseline: {
          runs: r[4] as number,
          resolved: r[5] as number,
          resolvedTokenCount: r[6] as number,
          resolvedTokenSum: weighted(r[7] as number, r[8] as number, r[9] as number),
        },
      }));
      const minerTasks = (minerTaskRows.all(competitionId) as unknown[][]).map((r): MinerTaskSummary => ({
        taskId: r[0] as string,
        hotkey: r[1] as string,
        runs: r[2] as number,
        resolved: r[3] as number,
        tokenCount: r[4] as number,
        tokenSum: weighted(r[5] as number, r[6] as number, r[7] as number),
      }));
      const miners = (minerRows.all(competitionId) as unknown[][]).map((r) => ({ hotkey: r[0] as string, excluded: r[1] === 1 }));
      return { tasks, miners, minerTasks };
    },
  };
}
