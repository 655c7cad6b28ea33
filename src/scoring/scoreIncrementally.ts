import { alignEntries } from './alignEntries.js';
import { ascending } from './ascending.js';
import { competitionScores } from './competitionScores.js';
import { emptyGroupSums } from './groupScores.js';
import { emptySums } from './minerAggregate.js';
import { buildRecords, findTask, rebuildRecord, relisted, type MinerRecord } from './minerRecord.js';
import type { MinerTasks } from './scoreTasks.js';
import { tasksInStages } from './stages.js';
import { sameTask, taskTable, type TaskTable } from './taskTable.js';
import { STAGES } from './types.js';
import type {
  CompetitionInput,
  CompetitionScores,
  EntryList,
  MinerScore,
  MinerTaskSummary,
  ScoringTask,
} from './types.js';

/**
 * What `scoreIncrementally` keeps of one scoring of a competition for one stage set: the tasks,
 * every miner's (task, miner) scores and SPEC 5 sums, and the entry list they come from. A plain
 * value that is never changed once made: the next call makes a new state and shares what did not
 * change with this one, which therefore stays valid.
 */
export interface ScoringState {
  readonly stages: string;
  readonly table: TaskTable;
  readonly records: ReadonlyMap<string, MinerRecord>;
  readonly entries: EntryList<MinerTaskSummary>;
  /** Some pair had more than one entry: the next scoring starts from scratch. */
  readonly repeated: boolean;
  /**
   * Each record's miner score as these scores hold it, once they are made (by hotkey): the next
   * scoring hands a record it keeps its score here to `competitionScores`, which takes it as it
   * is where rank and weights did not change.
   */
  readonly scored?: ReadonlyMap<string, MinerScore>;
}

/**
 * What changed from one entry list to the next, as whoever made the lists knows it: the entries of
 * `to` that are not in `from`, and those of `from` not in `to`, by identity, each once.
 */
export interface EntryChanges {
  readonly from: EntryList<MinerTaskSummary>;
  readonly to: EntryList<MinerTaskSummary>;
  readonly added: readonly MinerTaskSummary[];
  readonly gone: readonly MinerTaskSummary[];
}

/** The input's miners: hotkey to excluded (by any of its entries), as scoreTasks reads them. */
function listedOf(input: CompetitionInput): Map<string, boolean> {
  const listed = new Map<string, boolean>();
  for (const m of input.miners) listed.set(m.hotkey, (listed.get(m.hotkey) ?? false) || m.excluded);
  return listed;
}

/** The records as the full scorer's miners: an excluded miner with nothing, every list of tasks empty. */
function* taking(records: ReadonlyMap<string, MinerRecord>): Generator<MinerTasks> {
  for (const r of records.values()) {
    const { hotkey, excluded } = r;
    if (excluded)
      yield { hotkey, excluded, tasks: [], runs: 0, resolved: 0, sums: emptySums(), groups: emptyGroupSums() };
    else yield { hotkey, excluded, tasks: [], runs: r.runs, resolved: r.resolved, sums: r.sums, groups: r.groups };
  }
}

/** The records in hotkey order: `competitionScores` then gets its miners in the order the contests take them. */
const byHotkey = (records: ReadonlyMap<string, MinerRecord>) =>
  new Map([...records].sort((a, b) => ascending(a[0], b[0])));

function build(stages: string, tasks: ScoringTask[], input: CompetitionInput): ScoringState {
  const table = taskTable(tasks);
  const { records, repeated } = buildRecords(table, listedOf(input), input.minerTasks);
  return { stages, table, records: byHotkey(records), entries: input.minerTasks, repeated };
}

/** The tasks of `prev` with `dirty` ones replaced, or undefined when the set of task ids changed. */
function tableAfter(prev: TaskTable, tasks: ScoringTask[], dirty: Uint8Array): TaskTable | undefined {
  if (tasks.length !== prev.tasks.length) return undefined;
  let changed = false;
  for (let i = 0; i < tasks.length; i++) {
    const [was, now] = [prev.tasks[i] as ScoringTask, tasks[i] as ScoringTask];
    if (was.id !== now.id) return undefined;
    if (was !== now && !sameTask(was, now)) {
      dirty[i] = 1;
      changed = true;
    }
  }
  if (!changed) return prev;
  const table = taskTable(tasks, prev.index);
  prev.scorers.forEach((scorer, i) => dirty[i] || (table.scorers[i] = scorer));
  return table;
}

/**
 * The state after the changes from `prev` to `input`, or undefined where scoring from scratch is
 * as cheap or is needed: the task ids in the stages changed, many tasks or entries changed, or
 * some pair has more than one entry.
 */
function update(
  prev: ScoringState,
  tasks: ScoringTask[],
  input: CompetitionInput,
  changes: EntryChanges | undefined,
): ScoringState | undefined {
  if (prev.repeated) return undefined;
  const dirty = new Uint8Array(tasks.length);
  const table = tableAfter(prev.table, tasks, dirty);
  const dirtyTasks = dirty.reduce<number[]>((list, d, i) => (d ? [...list, i] : list), []);
  if (!table || dirtyTasks.length > Math.max(8, tasks.length / 4)) return undefined;
  const entries = input.minerTasks;
  const { added, gone } =
    changes?.from === prev.entries && changes.to === entries
      ? changes
      : prev.entries === entries
        ? { added: [], gone: [] }
        : alignEntries(prev.entries, entries);
  if (added.length > Math.max(64, entries.length / 2)) return undefined;

  // Per miner, task index to its new entry (null: the pair is gone).
  const edits = new Map<string, Map<number, MinerTaskSummary | null>>();
  const editsOf = (hotkey: string) => edits.get(hotkey) ?? edits.set(hotkey, new Map()).get(hotkey)!;
  const taskOf = (e: MinerTaskSummary) => (e.runs > 0 ? table.index.get(e.taskId) : undefined);
  const held = (e: MinerTaskSummary, task: number) => {
    const r = prev.records.get(e.hotkey);
    const k = r ? findTask(r.tasks, task) : -1;
    return k < 0 ? undefined : r!.entries[k];
  };
  const wentAway = new Set(gone);
  for (const e of added) {
    const task = taskOf(e);
    if (task === undefined) continue;
    const mine = editsOf(e.hotkey);
    const before = held(e, task);
    // A second entry of the pair: the new one twice, or beside the entry still in the list.
    if (mine.get(task) || (before && !wentAway.has(before))) return undefined;
    mine.set(task, e);
  }
  for (const e of gone) {
    const task = taskOf(e);
    if (task === undefined) continue;
    if (held(e, task) !== e) return undefined;
    const mine = editsOf(e.hotkey);
    if (!mine.has(task)) mine.set(task, null);
  }

  const listed = listedOf(input);
  const whoIs = (hotkey: string) => ({ hotkey, listed: listed.has(hotkey), excluded: listed.get(hotkey) ?? false });
  const touched = new Set(edits.keys());
  if (dirtyTasks.length > 0)
    for (const [hotkey, r] of prev.records) if (dirtyTasks.some((t) => findTask(r.tasks, t) >= 0)) touched.add(hotkey);
  const records = new Map(prev.records);
  for (const hotkey of touched)
    records.set(hotkey, rebuildRecord(table, whoIs(hotkey), prev.records.get(hotkey), edits.get(hotkey), dirtyTasks));
  for (const [hotkey, r] of records) {
    const now = relisted(r, listed.has(hotkey), listed.get(hotkey) ?? false);
    if (!now.listed && now.tasks.length === 0) records.delete(hotkey);
    else if (now !== r) records.set(hotkey, now);
  }
  for (const hotkey of listed.keys())
    if (!records.has(hotkey)) records.set(hotkey, rebuildRecord(table, whoIs(hotkey), undefined, undefined, []));
  // A new miner went last: the records in hotkey order again.
  let ordered = true;
  for (const hotkey of records.keys()) if (!prev.records.has(hotkey)) ordered = false;
  return { stages: prev.stages, table, records: ordered ? records : byHotkey(records), entries, repeated: false };
}

/**
 * `scoreCompetition(input, { keepTasks: false })`, number for number, from the state of an
 * earlier scoring of the same competition and stage set: only the (task, miner) pairs whose entry
 * changed are scored again (every pair of a task whose task changed, its baseline say), the SPEC 5
 * sums only of the miners they belong to, and the leaderboard order and SPEC 6 contests from all
 * miners' sums. Without a usable `prev` (none, another stage set, other task ids) everything is
 * scored. Returns the scores and the state for the next call; `prev` stays valid.
 *
 * Entries are told apart by identity first: an entry at the same place in the list as in
 * `prev.entries` is taken as unchanged, so an entry object must never change once scored (the
 * storage layer's in-memory pairs make a new object for every change). Entries not at their place
 * are compared by value with the entry the state holds for their pair. `changes`, when it goes from
 * `prev.entries` to `input.minerTasks`, says which entries are not at their place, and the lists
 * are not compared.
 */
export function scoreIncrementally(
  prev: ScoringState | undefined,
  input: CompetitionInput,
  changes?: EntryChanges,
): { scores: CompetitionScores; state: ScoringState } {
  const stages = STAGES.filter((s) => input.stages.includes(s));
  const key = stages.join(',');
  const tasks = tasksInStages(input.tasks, stages).sort((a, b) => ascending(a.id, b.id));
  const made = (prev?.stages === key ? update(prev, tasks, input, changes) : undefined) ?? build(key, tasks, input);
  // A record the update kept (the same object as in `prev`) stands for the same miner score.
  const before = prev?.scored;
  const held = prev?.records;
  const kept =
    before &&
    held &&
    ((m: MinerTasks) => (held.get(m.hotkey) === made.records.get(m.hotkey) ? before.get(m.hotkey) : undefined));
  const scores = competitionScores(stages, tasks, taking(made.records), input.burnRatio, kept);
  const scored = new Map<string, MinerScore>();
  for (const m of scores.miners) scored.set(m.hotkey, m);
  return { scores, state: { ...made, scored } };
}
