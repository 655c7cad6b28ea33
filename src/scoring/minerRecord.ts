import { bucketByTask } from './bucketByTask.js';
import { emptyGroupSums, type GroupSums } from './groupScores.js';
import { addScore, emptySums, HARD, kindOf, type ScoreSums, type SumKind } from './minerAggregate.js';
import { mergeEntries } from './scoreTasks.js';
import { sameEntry, scorerOf, type TaskTable } from './taskTable.js';
import type { MinerTaskSummary } from './types.js';

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

/** The pair's value and sum kind, from its task score (SPEC 3–4). */
function scored(table: TaskTable, task: number, entry: MinerTaskSummary): [number, SumKind] {
  const s = scorerOf(table, task)(entry);
  const kind = kindOf(s);
  return [kind === HARD ? (s.hardBoostContribution ?? 0) : (s.score ?? 0), kind];
}

/** A task's group sums, as addGroupTask picks them; none for a task without a complexity. */
function groupOf(groups: GroupSums, complexity: string | null | undefined): ScoreSums | null {
  if (complexity === 'short') return groups.short;
  if (complexity === 'medium') return groups.medium;
  return complexity === 'long' ? groups.long : null;
}

/** A record from its pairs: the sums taken in task order with scoreTasks' float operations. */
function record(
  table: TaskTable,
  who: Pick<MinerRecord, 'hotkey' | 'listed' | 'excluded'>,
  pairs: Pick<MinerRecord, 'tasks' | 'entries' | 'values' | 'kinds'>,
): MinerRecord {
  const sums = emptySums();
  const groups = emptyGroupSums();
  let runs = 0;
  let resolved = 0;
  for (let k = 0; k < pairs.tasks.length; k++) {
    const task = pairs.tasks[k] as number;
    const entry = pairs.entries[k] as MinerTaskSummary;
    runs += entry.runs;
    resolved += entry.resolved;
    const kind = pairs.kinds[k] as SumKind;
    const value = pairs.values[k] as number;
    const weight = table.weights[task] as number;
    addScore(sums, kind, value, weight);
    const group = groupOf(groups, table.tasks[task]?.complexity);
    if (group) addScore(group, kind, value, weight);
  }
  return { ...who, ...pairs, runs, resolved, sums, groups };
}

/** The same record as listed or excluded otherwise (its sums do not depend on it). */
export function relisted(r: MinerRecord, listed: boolean, excluded: boolean): MinerRecord {
  return r.listed === listed && r.excluded === excluded ? r : { ...r, listed, excluded };
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
  entries: readonly MinerTaskSummary[],
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
    for (let k = 0; k < b.filled; k++) [values[k], kinds[k]] = scored(table, tasks[k] as number, pairEntries[k]!);
    const excluded = listed.get(b.hotkey) ?? false;
    const who = { hotkey: b.hotkey, listed: listed.has(b.hotkey), excluded };
    records.set(b.hotkey, record(table, who, { tasks, entries: pairEntries, values, kinds }));
  }
  return { records, repeated };
}

/**
 * A miner's record after `edits` (task index to its new entry, or null for a pair gone), with
 * the pairs of `dirty` tasks (their task changed) scored again; a pair whose entry is replaced
 * by an equal one keeps its score.
 */
export function rebuildRecord(
  table: TaskTable,
  who: Pick<MinerRecord, 'hotkey' | 'listed' | 'excluded'>,
  old: MinerRecord | undefined,
  edits: ReadonlyMap<number, MinerTaskSummary | null> | undefined,
  dirty: Uint8Array,
): MinerRecord {
  const tasks: number[] = [];
  const entries: MinerTaskSummary[] = [];
  const values: number[] = [];
  const kinds: SumKind[] = [];
  const push = (task: number, entry: MinerTaskSummary, k: number) => {
    const keep = old !== undefined && k >= 0 && dirty[task] === 0 && sameEntry(old.entries[k]!, entry);
    const [value, kind] = keep ? [old.values[k] as number, old.kinds[k] as SumKind] : scored(table, task, entry);
    tasks.push(task);
    entries.push(entry);
    values.push(value);
    kinds.push(kind);
  };
  const n = old?.tasks.length ?? 0;
  let k = 0;
  for (const [task, entry] of [...(edits ?? [])].sort((a, b) => a[0] - b[0])) {
    for (; k < n && old!.tasks[k]! < task; k++) push(old!.tasks[k]!, old!.entries[k]!, k);
    const at = k < n && old!.tasks[k] === task ? k++ : -1;
    if (entry) push(task, entry, at);
  }
  for (; k < n; k++) push(old!.tasks[k]!, old!.entries[k]!, k);
  const pairs = {
    tasks: Int32Array.from(tasks),
    entries,
    values: Float64Array.from(values),
    kinds: Uint8Array.from(kinds),
  };
  return record(table, who, pairs);
}
