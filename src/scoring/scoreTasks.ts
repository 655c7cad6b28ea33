import { bucketByTask } from './bucketByTask.js';
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
  /** Task scores written so far; `tasks` is allocated once at its final size. */
  filled: number;
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
  const pending = miner.tasks[miner.filled - 1];
  if (!pending) return;
  addTask(miner.sums, pending);
  addGroupTask(miner.groups, pending);
}

/**
 * Scores every (task, miner) entry with at least one run against `tasks` (already filtered to
 * the stages and sorted by id); entries of other tasks are ignored. Miners marked excluded (by
 * any of their entries in `miners`) get nothing; hotkeys found only in entries take part. A
 * repeated (task, miner) entry is scored as the sum of both. Each score is added to its miner's
 * sums, in task-id order, while it is still in cache.
 */
export function scoreTasks(
  tasks: readonly ScoringTask[],
  miners: readonly ScoringMiner[],
  entries: readonly MinerTaskSummary[],
): Map<string, MinerTasks> {
  const states = new Map<string, State>();
  const add = (hotkey: string, excluded: boolean): State => {
    const [sums, groups] = [emptySums(), emptyGroupSums()];
    const tasks: TaskScore[] = [];
    const s: State = { hotkey, excluded, tasks, runs: 0, resolved: 0, sums, groups, filled: 0, last: null };
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
    miner.tasks = new Array<TaskScore>(miner.filled);
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
        miner.last = merge(miner.last, entry);
        miner.tasks[miner.filled - 1] = taskScore(miner.last);
      } else {
        flush(miner);
        miner.last = entry;
        miner.tasks[miner.filled++] = taskScore(entry);
      }
    }
  });
  for (const miner of states.values()) {
    flush(miner);
    miner.tasks.length = miner.filled; // repeated entries were merged
  }
  return states;
}
