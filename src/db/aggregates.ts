// Keeps the per-(task, miner) and per-task baseline aggregates in step with the runs table.
// Called inside the write transaction that inserts or deletes the runs.
import type { Db } from './client.js';
import { emitWrite, pairKey } from './events.js';
import type { TokenWeights } from '../scoring/types.js';
import { addRunTokens, emptyTokenSums, type TokenSums } from '../scoring/tokenSums.js';
import { tokenSumsSql, tokenWeightParams } from './tokenSql.js';

/** What the aggregates read of a run (a RunRecord is one). */
export interface AggregatedRun {
  competitionId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey: string | null;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
}

interface Sum {
  d: AggregatedRun;
  runs: number;
  resolved: number;
  tokens: TokenSums;
}

export function aggregateWriter(db: Db) {
  const c = db.$client;
  const minerUpsert = c.prepare(`
    INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
    VALUES (@competitionId, @taskId, @hotkey, @runs, @resolved, @tokenCount, @input, @cached, @output)
    ON CONFLICT (competition_id, task_id, hotkey) DO UPDATE SET
      runs = runs + excluded.runs, resolved = resolved + excluded.resolved,
      token_count = token_count + excluded.token_count, input_sum = input_sum + excluded.input_sum,
      cached_sum = cached_sum + excluded.cached_sum, output_sum = output_sum + excluded.output_sum`);
  const minerPrune = c.prepare(
    'DELETE FROM miner_tasks WHERE competition_id = ? AND task_id = ? AND hotkey = ? AND runs <= 0',
  );
  const baselineUpdate = c.prepare(`
    UPDATE tasks SET baseline_runs = baseline_runs + @runs, baseline_resolved = baseline_resolved + @resolved,
      baseline_token_count = baseline_token_count + @tokenCount, baseline_input_sum = baseline_input_sum + @input,
      baseline_cached_sum = baseline_cached_sum + @cached, baseline_output_sum = baseline_output_sum + @output
    WHERE competition_id = @competitionId AND id = @taskId`);
  const taskRunCount = c.prepare('UPDATE tasks SET run_count = run_count + ? WHERE competition_id = ? AND id = ?');

  /**
   * Adds (sign 1) or removes (sign -1) the runs' contributions. Deltas are summed per
   * (task, miner) first, so a batch of 1,000 runs costs one statement per pair, not per run.
   */
  function apply(runs: readonly AggregatedRun[], w: TokenWeights, sign: 1 | -1): void {
    const sums = new Map<string, Sum>();
    for (const d of runs) {
      const key = `${d.kind}\u0000${d.taskId}\u0000${d.minerHotkey ?? ''}`;
      let s = sums.get(key);
      if (!s) sums.set(key, (s = { d, runs: 0, resolved: 0, tokens: emptyTokenSums() }));
      s.runs += sign;
      if (d.resolved) s.resolved += sign;
      addRunTokens(s.tokens, d, w, sign);
    }
    const perTask = new Map<string, { d: AggregatedRun; runs: number }>();
    for (const { d, tokens: t, ...s } of sums.values()) {
      const params = {
        ...s, tokenCount: t.count, input: t.input, cached: t.cached, output: t.output,
        competitionId: d.competitionId, taskId: d.taskId,
      };
      const task = perTask.get(d.taskId);
      if (task) task.runs += s.runs;
      else perTask.set(d.taskId, { d, runs: s.runs });
      if (d.kind === 'baseline') {
        baselineUpdate.run(params);
        emitWrite(db, { competitionId: d.competitionId, kind: 'tasks' });
      } else {
        minerUpsert.run({ ...params, hotkey: d.minerHotkey });
        if (sign < 0) minerPrune.run(d.competitionId, d.taskId, d.minerHotkey);
        emitWrite(db, { competitionId: d.competitionId, kind: 'pair', pair: pairKey(d.taskId, d.minerHotkey ?? '') });
      }
    }
    for (const { d, runs } of perTask.values()) taskRunCount.run(runs, d.competitionId, d.taskId);
  }

  return { apply };
}

/**
 * Recomputes every aggregate of a competition from its runs, e.g. after its token weights change
 * (validity depends on them). The sums are the core's rule as SQL (src/db/tokenSql.ts).
 */
export function rebuildAggregates(db: Db, competitionId: string, w: TokenWeights): void {
  const c = db.$client;
  const params = { id: competitionId, ...tokenWeightParams(w) };
  emitWrite(db, { competitionId, kind: 'rebuild' });
  c.prepare('DELETE FROM miner_tasks WHERE competition_id = @id').run({ id: competitionId });
  c.prepare(`
    INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
    SELECT competition_id, task_id, miner_hotkey, ${tokenSumsSql()}
    FROM runs WHERE competition_id = @id AND kind = 'miner' GROUP BY task_id, miner_hotkey`).run(params);
  c.prepare(`
    UPDATE tasks SET (baseline_runs, baseline_resolved, baseline_token_count, baseline_input_sum,
      baseline_cached_sum, baseline_output_sum) = (
      SELECT ${tokenSumsSql()}
      FROM runs r WHERE r.competition_id = tasks.competition_id AND r.task_id = tasks.id AND r.kind = 'baseline')
    WHERE competition_id = @id`).run(params);
}
