import { addGroupTask, emptyGroupSums, type GroupSums } from './groupScores.js';
import { addTask, emptySums, type ScoreSums } from './minerAggregate.js';
import { taskScorer } from './taskScore.js';
import type { MinerTaskSummary, ScoringMiner, ScoringTask, TaskScore } from './types.js';

/** One miner's scored tasks (sorted by task id), run totals, and SPEC 5 sums over them. */
export interface MinerTasks {
  hotkey: string;
  excluded: boolean;
  tasks: TaskScore[];
  runs: number;
  resolved: number;
  sums: ScoreSums;
  groups: GroupSums;
}

interface State extends MinerTasks {
  /** The summary behind the last task score, kept to merge a repeated (task, miner) entry. */
  last: MinerTaskSummary | null;
}

function merge(a: MinerTaskSummary, b: MinerTaskSummary): MinerTaskSummary {
  return {
    taskId: a.taskId,
    hotkey: a.hotkey,
    runs: a.runs + b.runs,
    resolved: a.resolved + b.resolved,
    tokenSum: a.tokenSum + b.tokenSum,
    tokenCount: a.tokenCount + b.tokenCount,
  };
}

// A task score enters the sums only once the miner has moved on to its next task, so a
// repeated (task, miner) entry can still replace it; `flush` adds the last one.
function flush(miner: State): void {
  const pending = miner.tasks[miner.tasks.length - 1];
  if (!pending) return;
  addTask(miner.sums, pending);
  addGroupTask(miner.groups, pending);
}

/**
 * Scores every (task, miner) entry with at least one run against `tasks` (already filtered to
 * the stages and sorted by id); entries of other tasks are ignored, so a miner is scored only
 * on tasks it ran. Miners marked excluded (by any of their entries in `miners`) get nothing;
 * hotkeys found only in entries take part. A repeated (task, miner) entry is scored as the sum
 * of both. Bucketing entries by task index is a counting sort: each miner's tasks come out in id
 * order and are summed in that order while still hot in cache, one pass over the entries.
 */
export function scoreTasks(
  tasks: readonly ScoringTask[],
  miners: readonly ScoringMiner[],
  entries: readonly MinerTaskSummary[],
): Map<string, MinerTasks> {
  const index = new Map<string, number>();
  tasks.forEach((task, i) => index.has(task.id) || index.set(task.id, i));
  const buckets: MinerTaskSummary[][] = tasks.map(() => []);
  for (const entry of entries) {
    const i = index.get(entry.taskId);
    if (i !== undefined && entry.runs > 0) buckets[i]?.push(entry);
  }
  const states = new Map<string, State>();
  const add = (hotkey: string, excluded: boolean): State => {
    const groups = emptyGroupSums();
    const s: State = { hotkey, excluded, tasks: [], runs: 0, resolved: 0, sums: emptySums(), groups, last: null };
    states.set(hotkey, s);
    return s;
  };
  for (const m of miners) {
    const known = states.get(m.hotkey);
    if (known) known.excluded ||= m.excluded;
    else add(m.hotkey, m.excluded);
  }
  tasks.forEach((task, i) => {
    const taskScore = taskScorer(task);
    for (const entry of buckets[i] ?? []) {
      const miner = states.get(entry.hotkey) ?? add(entry.hotkey, false);
      if (miner.excluded) continue;
      miner.runs += entry.runs;
      miner.resolved += entry.resolved;
      if (miner.last && miner.last.taskId === task.id) {
        miner.last = merge(miner.last, entry);
        miner.tasks[miner.tasks.length - 1] = taskScore(miner.last);
      } else {
        flush(miner);
        miner.last = entry;
        miner.tasks.push(taskScore(entry));
      }
    }
  });
  for (const miner of states.values()) flush(miner);
  return states;
}
