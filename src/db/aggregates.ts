// Keeps the per-(task, miner) and per-task baseline aggregates in step with the runs table.
// Called inside the write transaction that inserts or deletes the runs.
import type { Db } from './client.js';
import { emitWrite, pairKey } from './events.js';
import type { TokenWeights } from '../scoring/types.js';

/** What the aggregates read of a run (a RunRecord is one). */
export interface AggregatedRun {
  competitionId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey: string | null;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
}

/** SPEC 2 validity: required counts present, none negative, weighted total above 0. */
export function hasValidTokens(tokens: AggregatedRun['tokens'], w: TokenWeights): boolean {
  if (!tokens) return false;
  const cachedInput = tokens.cachedInput ?? 0;
  if (tokens.input < 0 || tokens.output < 0 || cachedInput < 0) return false;
  return w.input * tokens.input + w.cachedInput * cachedInput + w.output * tokens.output > 0;
}

interface Sum {
  d: AggregatedRun;
  runs: number;
  resolved: number;
  tokenCount: number;
  input: number;
  cached: number;
  output: number;
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
      if (!s) sums.set(key, (s = { d, runs: 0, resolved: 0, tokenCount: 0, input: 0, cached: 0, output: 0 }));
      s.runs += sign;
      if (d.resolved) s.resolved += sign;
      // Baseline token sums cover resolved runs only (T_B); miner sums cover every run (T_A).
      if ((d.kind === 'miner' || d.resolved) && d.tokens && hasValidTokens(d.tokens, w)) {
        s.tokenCount += sign;
        s.input += sign * d.tokens.input;
        s.cached += sign * (d.tokens.cachedInput ?? 0);
        s.output += sign * d.tokens.output;
      }
    }
    const perTask = new Map<string, { d: AggregatedRun; runs: number }>();
    for (const { d, ...s } of sums.values()) {
      const params = { ...s, competitionId: d.competitionId, taskId: d.taskId };
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

/** Recomputes every aggregate of a competition from its runs, e.g. after its token weights change. */
export function rebuildAggregates(db: Db, competitionId: string, w: TokenWeights): void {
  const c = db.$client;
  const valid = `(tokens_input IS NOT NULL AND tokens_output IS NOT NULL
    AND @wi * tokens_input + @wc * coalesce(tokens_cached_input, 0) + @wo * tokens_output > 0)`;
  const params = { id: competitionId, wi: w.input, wc: w.cachedInput, wo: w.output };
  emitWrite(db, { competitionId, kind: 'rebuild' });
  c.prepare('DELETE FROM miner_tasks WHERE competition_id = @id').run({ id: competitionId });
  c.prepare(`
    INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum)
    SELECT competition_id, task_id, miner_hotkey, count(*), sum(resolved), sum(${valid}),
      sum(CASE WHEN ${valid} THEN tokens_input ELSE 0 END),
      sum(CASE WHEN ${valid} THEN coalesce(tokens_cached_input, 0) ELSE 0 END),
      sum(CASE WHEN ${valid} THEN tokens_output ELSE 0 END)
    FROM runs WHERE competition_id = @id AND kind = 'miner' GROUP BY task_id, miner_hotkey`).run(params);
  const rv = `(resolved AND ${valid})`;
  c.prepare(`
    UPDATE tasks SET (baseline_runs, baseline_resolved, baseline_token_count, baseline_input_sum,
      baseline_cached_sum, baseline_output_sum) = (
      SELECT count(*), coalesce(sum(resolved), 0), coalesce(sum(${rv}), 0),
        coalesce(sum(CASE WHEN ${rv} THEN tokens_input ELSE 0 END), 0),
        coalesce(sum(CASE WHEN ${rv} THEN coalesce(tokens_cached_input, 0) ELSE 0 END), 0),
        coalesce(sum(CASE WHEN ${rv} THEN tokens_output ELSE 0 END), 0)
      FROM runs r WHERE r.competition_id = tasks.competition_id AND r.task_id = tasks.id AND r.kind = 'baseline')
    WHERE competition_id = @id`).run(params);
}
