import type { MinerTaskSummary, ScoringTask } from './types.js';

/** A miner as the bucketing pass sees it: whether it takes part, and a counter of its entries. */
export interface Owner {
  excluded: boolean;
  filled: number;
}

/**
 * Groups (task, miner) entries by the index of their task in `tasks` (sorted by id), with the
 * miner each belongs to. Entries of unknown tasks, with no run, or of excluded miners are left
 * out: a miner is scored only on tasks it ran. Bucketing by task index is a counting sort, so
 * walking the buckets in order hands every miner its tasks in id order without sorting; each
 * owner's `filled` counts its entries, so its task list can be allocated once at its size.
 */
export function bucketByTask<O extends Owner>(
  tasks: readonly ScoringTask[],
  entries: readonly MinerTaskSummary[],
  ownerOf: (hotkey: string) => O,
): { entries: MinerTaskSummary[][]; owners: O[][] } {
  const index = new Map<string, number>();
  tasks.forEach((task, i) => index.has(task.id) || index.set(task.id, i));
  const buckets: MinerTaskSummary[][] = tasks.map(() => []);
  const owners: O[][] = tasks.map(() => []);
  for (const entry of entries) {
    const i = index.get(entry.taskId);
    if (i === undefined || !(entry.runs > 0)) continue;
    const owner = ownerOf(entry.hotkey);
    if (owner.excluded) continue;
    owner.filled += 1;
    buckets[i]?.push(entry);
    owners[i]?.push(owner);
  }
  return { entries: buckets, owners };
}
