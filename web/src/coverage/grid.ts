// The coverage pairs of a stage set as a task × miner grid: every page of `GET …/coverage` read
// through the client, rows by task id, columns the baseline then hotkeys (the API's order).
import { api, read, stagesQuery, type Coverage, type CoveragePair, type Stage } from '../api.js';

export interface Grid {
  tasks: string[];
  miners: string[];
  /** The pair at row × column, or undefined where the API lists none. */
  at(row: number, col: number): CoveragePair | undefined;
  summary: Coverage['summary'];
}

/** Every pair of the stage set, following `nextCursor` to the end. */
export async function loadCoverage(id: string, stages: Stage[] | null): Promise<Coverage> {
  const path = { competitionId: id };
  const first = await read(
    api.GET('/v1/competitions/{competitionId}/coverage', {
      params: { path, query: { ...stagesQuery(stages), limit: 10_000 } },
    }),
  );
  const pairs = [...first.pairs];
  let cursor = first.nextCursor;
  while (cursor) {
    const next = await read(
      api.GET('/v1/competitions/{competitionId}/coverage', {
        params: { path, query: { ...stagesQuery(stages), limit: 10_000, cursor } },
      }),
    );
    pairs.push(...next.pairs);
    cursor = next.nextCursor;
  }
  return { ...first, pairs, nextCursor: null };
}

/** Only a stage set's summary: one pair asked for, the summary covers them all. */
export async function loadSummary(id: string, stage: Stage): Promise<Coverage['summary']> {
  const body = await read(
    api.GET('/v1/competitions/{competitionId}/coverage', {
      params: { path: { competitionId: id }, query: { stages: stage, limit: 1 } },
    }),
  );
  return body.summary;
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
    at: (row, col) => cells.get(row * miners.length + col),
    summary: coverage.summary,
  };
}

/** The pairs as CSV, for the download beside the heatmap. */
export function toCsv(pairs: CoveragePair[]): string {
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = pairs.map((p) => [quote(p.taskId), quote(p.miner), p.planned, p.have, p.missing].join(','));
  return ['taskId,miner,planned,have,missing', ...lines].join('\n') + '\n';
}
