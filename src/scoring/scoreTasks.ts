import { bucketByTask } from './bucketByTask.js';
import { addGroupTask, emptyGroupSums, type GroupSums } from './groupScores.js';
import { addTask, emptySums, type ScoreSums } from './minerAggregate.js';
import { taskScorer } from './taskScore.js';
import type { EntryList, MinerTaskSummary, ScoringMiner, ScoringTask, TaskScore } from './types.js';

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
  /** Entries counted while bucketing, then task scores kept so far. */
  filled: number;
  /** The summary behind the pending task score, kept to merge a repeated (task, miner) entry. */
  last: MinerTaskSummary | null;
  /** The latest task score, not yet in the sums. */
  pending: TaskScore | null;
}

/** Two entries of one (task, miner) as one: their runs and token sums added, in this order. */
export function mergeEntries(a: MinerTaskSummary, b: MinerTaskSummary): MinerTaskSummary {
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
function flush(miner: State, keep: boolean): void {
  const pending = miner.pending;
  if (!pending) return;
  addTask(miner.sums, pending);
  addGroupTask(miner.groups, pending);
  if (keep) miner.tasks[miner.filled++] = pending;
  miner.pending = null;
}

/**
 * Scores every (task, miner) entry with at least one run against `tasks` (already filtered to
 * the stages and sorted by id); entries of other tasks are ignored. Miners marked excluded (by
 * any of their entries in `miners`) get nothing; hotkeys found only in entries take part. A
 * repeated (task, miner) entry is scored as the sum of both. Each score is added to its miner's
 * sums, in task-id order, while it is still in cache. With `keepTasks` false the task scores
 * are dropped once summed and every `tasks` list is empty: a leaderboard needs only the sums,
 * and not retaining some 80,000 objects per read keeps the server's memory flat.
 */
export function scoreTasks(
  tasks: readonly ScoringTask[],
  miners: readonly ScoringMiner[],
  entries: EntryList<MinerTaskSummary>,
  keepTasks = true,
): Map<string, MinerTasks> {
  const states = new Map<string, State>();
  const add = (hotkey: string, excluded: boolean): State => {
    const [sums, groups] = [emptySums(), emptyGroupSums()];
    const tasks: TaskScore[] = [];
    const s: State = {
      hotkey,
      excluded,
      tasks,
      runs: 0,
      resolved: 0,
      sums,
      groups,
      filled: 0,
      last: null,
      pending: null,
    };
    states.set(hotkey, s);
    return s;
  };
  for (const m of miners) {
    const known = states.get(m.hotkey);
    if (known) known.excluded ||= m.excluded;
    else add(m.hotkey, m.excluded);
  }
  const buckets = bucketByTask(tasks, entries, (hotkey) => states.get(hotkey) ?? add(hotkey, false));
  // Growing hundreds of lists one element at a time measured slower than the scoring itself.
  for (const miner of states.values()) {
    if (keepTasks) miner.tasks = new Array<TaskScore>(miner.filled);
    miner.filled = 0;
  }

  tasks.forEach((task, i) => {
    const taskScore = taskScorer(task);
    const from = buckets.start[i] ?? 0;
    const to = from + (buckets.count[i] ?? 0);
    for (let k = from; k < to; k++) {
      const entry = buckets.entries[k] as MinerTaskSummary;
      const miner = buckets.owners[k] as State;
      miner.runs += entry.runs;
      miner.resolved += entry.resolved;
      if (miner.last && miner.last.taskId === task.id) {
        miner.last = mergeEntries(miner.last, entry);
      } else {
        flush(miner, keepTasks);
        miner.last = entry;
      }
      miner.pending = taskScore(miner.last);
    }
  });
  for (const miner of states.values()) {
    flush(miner, keepTasks);
    miner.tasks.length = miner.filled; // repeated entries were merged
  }
  return states;
}
