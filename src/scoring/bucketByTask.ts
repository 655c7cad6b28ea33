import type { EntryList, MinerTaskSummary, ScoringTask } from './types.js';

/** A miner as the bucketing pass sees it: whether it takes part, and a counter of its entries. */
export interface Owner {
  excluded: boolean;
  filled: number;
}

/** Entries grouped by task: those of task i sit at start[i] to start[i] + count[i] − 1. */
export interface Buckets<O> {
  entries: MinerTaskSummary[];
  owners: O[];
  start: Int32Array;
  count: Int32Array;
}

/**
 * Groups (task, miner) entries by the index of their task in `tasks` (sorted by id), with the
 * miner each belongs to. Entries of unknown tasks, with no run, or of excluded miners are left
 * out: a miner is scored only on tasks it ran. This is a counting sort into flat arrays sized
 * once: walking the tasks in order hands every miner its tasks in id order without sorting, and
 * each owner's `filled` counts its entries so its task list can be allocated once at its size.
 */
export function bucketByTask<O extends Owner>(
  tasks: readonly ScoringTask[],
  entries: EntryList<MinerTaskSummary>,
  ownerOf: (hotkey: string) => O,
): Buckets<O> {
  const index = new Map<string, number>();
  tasks.forEach((task, i) => index.has(task.id) || index.set(task.id, i));
  const slot = new Int32Array(entries.length);
  const start = new Int32Array(tasks.length + 1);
  let k = 0;
  for (const entry of entries) {
    const i = entry.runs > 0 ? index.get(entry.taskId) : undefined;
    slot[k++] = i ?? -1;
    if (i !== undefined) start[i + 1] = (start[i + 1] ?? 0) + 1;
  }
  for (let i = 0; i < tasks.length; i++) start[i + 1] = (start[i + 1] ?? 0) + (start[i] ?? 0);

  const count = new Int32Array(tasks.length);
  const total = start[tasks.length] ?? 0;
  const flat = new Array<MinerTaskSummary>(total);
  const owners = new Array<O>(total);
  k = 0;
  for (const entry of entries) {
    const i = slot[k++] ?? -1;
    if (i < 0) continue;
    const owner = ownerOf(entry.hotkey);
    if (owner.excluded) continue;
    owner.filled += 1;
    const at = (start[i] ?? 0) + (count[i] ?? 0);
    count[i] = (count[i] ?? 0) + 1;
    flat[at] = entry;
    owners[at] = owner;
  }
  return { entries: flat, owners, start, count };
}
