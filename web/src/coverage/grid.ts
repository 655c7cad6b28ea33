// The coverage pairs of a stage set as a task × miner grid: rows by task id, columns the baseline
// then hotkeys; and the pairs as CSV. Pure: web/src/coverage/load.ts reads the pairs.
import type { Coverage, CoveragePair } from '../api.js';

export interface Grid {
  tasks: string[];
  miners: string[];
  /** The pair at row × column, or undefined where the API lists none. */
  at(row: number, col: number): CoveragePair | undefined;
  summary: Coverage['summary'];
}

export function toGrid(coverage: Coverage): Grid {
  const tasks = [...new Set(coverage.pairs.map((p) => p.taskId))].sort();
  // The baseline is the first column, hotkeys follow in order.
  const miners = [...new Set(coverage.pairs.map((p) => p.miner))].sort((a, b) =>
    a === 'baseline' ? -1 : b === 'baseline' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
  const taskIndex = new Map(tasks.map((t, i) => [t, i]));
  const minerIndex = new Map(miners.map((m, i) => [m, i]));
  const cells = new Map<number, CoveragePair>();
  for (const p of coverage.pairs) cells.set(taskIndex.get(p.taskId)! * miners.length + minerIndex.get(p.miner)!, p);
  return {
    tasks,
    miners,
    at: (row, col) =>
      row >= 0 && row < tasks.length && col >= 0 && col < miners.length
        ? cells.get(row * miners.length + col)
        : undefined,
    summary: coverage.summary,
  };
}

/** The pairs as CSV, for the download beside the heatmap. */
export function toCsv(pairs: CoveragePair[]): string {
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = pairs.map((p) => [quote(p.taskId), quote(p.miner), p.planned, p.have, p.missing].join(','));
  return ['taskId,miner,planned,have,missing', ...lines].join('\n') + '\n';
}
