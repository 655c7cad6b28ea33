// Reads a competition's aggregates as the scoring core's plain input. Raw statements return
// arrays, not objects: this is the one read on the cold-score path and it touches every
// (task, miner) pair.
//
// The (task, miner) entries are kept in memory per competition once read, and a later read
// re-reads only the rows that writes reported as changed (src/db/events.ts): materializing every
// row of miner_tasks again after each write was most of a cold score read (about 100-160 ms and
// the garbage collection after it, for 83k rows; bench/). Tasks and miners are few and are read
// whole every time.
import type { Db } from './client.js';
import { pairKey, writeListeners } from './events.js';
import { weightedSum } from '../scoring/tokenSums.js';
import type { Complexity, MinerTaskSummary, ScoringMiner, ScoringTask, Stage, TokenWeights } from '../scoring/types.js';

interface Mirror {
  weights: TokenWeights;
  byPair: Map<string, MinerTaskSummary>;
  list: MinerTaskSummary[];
  /** Pairs changed since the last read; null after a rebuild: read everything again. */
  changed: Set<string> | null;
}

// The rows as both engines read them, as arrays in the column order of their queries (SQLite's
// booleans are 0/1). Token sums are stored as raw integer sums, weighted here once (the core's
// weightedSum).

/** id, stage, complexity, planned_runs, baseline_runs, baseline_resolved, baseline_token_count, and the three sums. */
export const taskEntry = (r: unknown[], w: TokenWeights): ScoringTask => ({
  id: r[0] as string,
  stage: r[1] as Stage,
  complexity: r[2] as Complexity | null,
  plannedRuns: r[3] as number | null,
  baseline: {
    runs: r[4] as number,
    resolved: r[5] as number,
    resolvedTokenCount: r[6] as number,
    resolvedTokenSum: weightedSum(
      { count: r[6] as number, input: r[7] as number, cached: r[8] as number, output: r[9] as number },
      w,
    ),
  },
});

/** hotkey, excluded. */
export const minerEntry = (r: unknown[]): ScoringMiner => ({
  hotkey: r[0] as string,
  excluded: r[1] === 1 || r[1] === true,
});

/** task_id, hotkey, runs, resolved, token_count, and the three sums. */
export const minerTaskEntry = (r: unknown[], w: TokenWeights): MinerTaskSummary => ({
  taskId: r[0] as string,
  hotkey: r[1] as string,
  runs: r[2] as number,
  resolved: r[3] as number,
  tokenCount: r[4] as number,
  tokenSum: weightedSum(
    { count: r[4] as number, input: r[5] as number, cached: r[6] as number, output: r[7] as number },
    w,
  ),
});

export function scoringInputRepo(db: Db) {
  const c = db.$client;
  const taskRows = c
    .prepare(
      `SELECT id, stage, complexity, planned_runs, baseline_runs, baseline_resolved,
      baseline_token_count, baseline_input_sum, baseline_cached_sum, baseline_output_sum
    FROM tasks WHERE competition_id = ?`,
    )
    .raw();
  const columns = 'task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum';
  const minerTaskRows = c.prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ?`).raw();
  const minerTaskRow = c
    .prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ? AND task_id = ? AND hotkey = ?`)
    .raw();
  const minerRows = c.prepare('SELECT hotkey, excluded FROM miners WHERE competition_id = ?').raw();
  const mirrors = new Map<string, Mirror>();
  writeListeners(db).add((event) => {
    const mirror = mirrors.get(event.competitionId);
    if (!mirror) return;
    if (event.kind === 'rebuild') mirror.changed = null;
    else if (event.kind === 'pair') mirror.changed?.add(event.pair);
  });

  const sameWeights = (a: TokenWeights, b: TokenWeights) =>
    a.input === b.input && a.cachedInput === b.cachedInput && a.output === b.output;

  function minerTasks(competitionId: string, w: TokenWeights): MinerTaskSummary[] {
    // Token sums are stored as raw integer sums, weighted here once (the core's weightedSum).
    const entry = (r: unknown[]) => minerTaskEntry(r, w);
    // Inside a write transaction the rows may not be committed yet: read them, keep nothing.
    if (c.inTransaction) return (minerTaskRows.all(competitionId) as unknown[][]).map(entry);

    const mirror = mirrors.get(competitionId);
    if (mirror?.changed && sameWeights(mirror.weights, w)) {
      if (mirror.changed.size > 0) {
        for (const key of mirror.changed) {
          const [taskId, hotkey] = key.split('\u0000') as [string, string];
          const row = minerTaskRow.get(competitionId, taskId, hotkey) as unknown[] | undefined;
          if (row) mirror.byPair.set(key, entry(row));
          else mirror.byPair.delete(key);
        }
        mirror.changed.clear();
        mirror.list = [...mirror.byPair.values()];
      }
      return mirror.list;
    }
    // Read every row, and listen for changes from here on (synchronous: no write in between).
    const list = (minerTaskRows.all(competitionId) as unknown[][]).map(entry);
    const byPair = new Map(list.map((e) => [pairKey(e.taskId, e.hotkey), e]));
    mirrors.set(competitionId, { weights: { ...w }, byPair, list, changed: new Set() });
    return list;
  }

  return {
    /** The scoring input; the returned arrays are shared between reads and must not be mutated. */
    load(
      competitionId: string,
      w: TokenWeights,
    ): { tasks: ScoringTask[]; miners: ScoringMiner[]; minerTasks: MinerTaskSummary[] } {
      const tasks = (taskRows.all(competitionId) as unknown[][]).map((r) => taskEntry(r, w));
      const miners = (minerRows.all(competitionId) as unknown[][]).map(minerEntry);
      return { tasks, miners, minerTasks: minerTasks(competitionId, w) };
    },
  };
}
