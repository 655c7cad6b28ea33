import { bucketByTask } from './bucketByTask.js';
import { emptyGroupSums, type GroupSums } from './groupScores.js';
import { addScores, emptySums, HARD, kindOf, type ScoreSums } from './minerAggregate.js';
import { mergeEntries } from './scoreTasks.js';
import { sameEntry, scorerOf, type TaskTable } from './taskTable.js';
import type { EntryList, MinerTaskSummary } from './types.js';

/**
 * One miner as the incremental scorer keeps it: whether the input's miners name it (and exclude
 * it), its (task, miner) pairs in task order (task index, entry, the value the sums add and how,
 * see `addScore`), and its run totals and SPEC 5 sums over them as if it took part. Never changed
 * once made: a change makes a new record, so a state handed out stays valid.
 */
export interface MinerRecord {
  readonly hotkey: string;
  readonly listed: boolean;
  readonly excluded: boolean;
  readonly tasks: Int32Array;
  readonly entries: readonly MinerTaskSummary[];
  readonly values: Float64Array;
  readonly kinds: Uint8Array;
  readonly runs: number;
  readonly resolved: number;
  readonly sums: Readonly<ScoreSums>;
  readonly groups: Readonly<GroupSums>;
}

/** Scores pair `at` (of `task`, with `entry`) into `values` and `kinds`, from its task score (SPEC 3–4). */
function scoreInto(
  table: TaskTable,
  task: number,
  entry: MinerTaskSummary,
  pairs: { values: Float64Array; kinds: Uint8Array },
  at: number,
): void {
  const s = scorerOf(table, task)(entry);
  const kind = kindOf(s);
  pairs.values[at] = kind === HARD ? (s.hardBoostContribution ?? 0) : (s.score ?? 0);
  pairs.kinds[at] = kind;
}

type Who = Pick<MinerRecord, 'hotkey' | 'listed' | 'excluded'>;
type Pairs = Pick<MinerRecord, 'tasks' | 'entries' | 'values' | 'kinds'>;

/**
 * A record from its pairs: the sums taken in task order with scoreTasks' float operations; the
 * run totals too, unless `totals` has them (the same entries as before).
 */
function record(
  table: TaskTable,
  who: Who,
  pairs: Pairs,
  totals?: Pick<MinerRecord, 'runs' | 'resolved'>,
): MinerRecord {
  const sums = emptySums();
  const groups = emptyGroupSums();
  addScores(sums, [groups.short, groups.medium, groups.long], pairs, table.weights, table.groups);
  let runs = 0;
  let resolved = 0;
  if (totals) ({ runs, resolved } = totals);
  else
    for (const entry of pairs.entries) {
      runs += entry.runs;
      resolved += entry.resolved;
    }
  return made(who, pairs, { runs, resolved, sums, groups });
}

/** Every record has its fields in one order, so the code that reads them sees one shape. */
function made(who: Who, pairs: Pairs, totals: Pick<MinerRecord, 'runs' | 'resolved' | 'sums' | 'groups'>): MinerRecord {
  return {
    hotkey: who.hotkey,
    listed: who.listed,
    excluded: who.excluded,
    tasks: pairs.tasks,
    entries: pairs.entries,
    values: pairs.values,
    kinds: pairs.kinds,
    runs: totals.runs,
    resolved: totals.resolved,
    sums: totals.sums,
    groups: totals.groups,
  };
}

/** The same record as listed or excluded otherwise (its sums do not depend on it). */
export function relisted(r: MinerRecord, listed: boolean, excluded: boolean): MinerRecord {
  return r.listed === listed && r.excluded === excluded ? r : made({ hotkey: r.hotkey, listed, excluded }, r, r);
}

interface Builder {
  hotkey: string;
  excluded: false;
  filled: number;
  tasks: Int32Array;
  entries: MinerTaskSummary[];
}

/**
 * Every miner's record from scratch: the miners `listed` (hotkey to excluded) and every hotkey
 * with an entry of a task in `table` with a run. `repeated` when some pair has more than one
 * entry: each is then scored as the sum of its entries, as scoreTasks does.
 */
export function buildRecords(
  table: TaskTable,
  listed: ReadonlyMap<string, boolean>,
  entries: EntryList<MinerTaskSummary>,
): { records: Map<string, MinerRecord>; repeated: boolean } {
  const builders = new Map<string, Builder>();
  const add = (hotkey: string): Builder => {
    const b: Builder = { hotkey, excluded: false, filled: 0, tasks: new Int32Array(0), entries: [] };
    builders.set(hotkey, b);
    return b;
  };
  for (const hotkey of listed.keys()) add(hotkey);
  // Excluded miners keep their pairs here (bucketed as taking part), so including them again is cheap.
  const buckets = bucketByTask(table.tasks, entries, (hotkey) => builders.get(hotkey) ?? add(hotkey));
  for (const b of builders.values()) {
    b.tasks = new Int32Array(b.filled);
    b.entries = new Array<MinerTaskSummary>(b.filled);
    b.filled = 0;
  }
  let repeated = false;
  for (let i = 0; i < table.tasks.length; i++) {
    const from = buckets.start[i] ?? 0;
    const to = from + (buckets.count[i] ?? 0);
    for (let k = from; k < to; k++) {
      const b = buckets.owners[k] as Builder;
      const entry = buckets.entries[k] as MinerTaskSummary;
      const last = b.filled - 1;
      if (last >= 0 && b.tasks[last] === i) {
        b.entries[last] = mergeEntries(b.entries[last] as MinerTaskSummary, entry);
        repeated = true;
      } else {
        b.tasks[b.filled] = i;
        b.entries[b.filled++] = entry;
      }
    }
  }
  const records = new Map<string, MinerRecord>();
  for (const b of builders.values()) {
    const tasks = b.tasks.subarray(0, b.filled);
    const pairEntries = b.entries.slice(0, b.filled);
    const values = new Float64Array(b.filled);
    const kinds = new Uint8Array(b.filled);
    for (let k = 0; k < b.filled; k++) scoreInto(table, tasks[k] as number, pairEntries[k]!, { values, kinds }, k);
    const excluded = listed.get(b.hotkey) ?? false;
    const who = { hotkey: b.hotkey, listed: listed.has(b.hotkey), excluded };
    records.set(b.hotkey, record(table, who, { tasks, entries: pairEntries, values, kinds }));
  }
  return { records, repeated };
}

/** Index of `task` in a record's ascending task indexes, or -1. */
export function findTask(tasks: Int32Array, task: number): number {
  let lo = 0;
  let hi = tasks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = tasks[mid] as number;
    if (t === task) return mid;
    if (t < task) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * A miner's record after `edits` (task index to its new entry, or null for a pair gone), with
 * its pairs of the `dirty` tasks (whose task changed) scored again; a pair whose entry is
 * replaced by an equal one keeps its score. Runs of unchanged pairs are copied whole.
 */
export function rebuildRecord(
  table: TaskTable,
  who: Who,
  old: MinerRecord | undefined,
  edits: ReadonlyMap<number, MinerTaskSummary | null> | undefined,
  dirty: readonly number[],
): MinerRecord {
  const rescore = (pairs: Pairs, totals?: MinerRecord) => {
    for (const task of dirty) {
      const at = findTask(pairs.tasks, task);
      if (at >= 0) scoreInto(table, task, pairs.entries[at]!, pairs, at);
    }
    return record(table, who, pairs, totals);
  };
  // Only tasks changed: the same entries, scored again where their task changed.
  if (old && !edits?.size)
    return rescore(
      { tasks: old.tasks, entries: old.entries, values: old.values.slice(), kinds: old.kinds.slice() },
      old,
    );

  const before: Pairs = old ?? {
    tasks: new Int32Array(0),
    entries: [],
    values: new Float64Array(0),
    kinds: new Uint8Array(0),
  };
  const sorted = [...(edits ?? [])].sort((a, b) => a[0] - b[0]);
  const n = before.tasks.length;
  let size = n;
  for (const [task, entry] of sorted) {
    const at = findTask(before.tasks, task);
    if (at < 0 && entry) size++;
    else if (at >= 0 && !entry) size--;
  }
  const tasks = new Int32Array(size);
  const values = new Float64Array(size);
  const kinds = new Uint8Array(size);
  const entries = new Array<MinerTaskSummary>(size);
  let out = 0;
  const put = (task: number, entry: MinerTaskSummary, value: number, kind: number) => {
    tasks[out] = task;
    entries[out] = entry;
    values[out] = value;
    kinds[out++] = kind;
  };
  const keep = (k: number) => put(before.tasks[k]!, before.entries[k]!, before.values[k]!, before.kinds[k]!);
  let k = 0;
  for (const [task, entry] of sorted) {
    for (; k < n && before.tasks[k]! < task; k++) keep(k);
    const was = k < n && before.tasks[k] === task ? k++ : -1;
    if (!entry) continue;
    // An entry replaced by an equal one (a list read again) keeps its score.
    if (was >= 0 && sameEntry(before.entries[was]!, entry)) put(task, entry, before.values[was]!, before.kinds[was]!);
    else {
      put(task, entry, 0, 0);
      scoreInto(table, task, entry, { values, kinds }, out - 1);
    }
  }
  for (; k < n; k++) keep(k);
  return rescore({ tasks, entries, values, kinds });
}
