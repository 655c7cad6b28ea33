// Coverage (SPEC 13): for each (task, miner) pair and each task's baseline, the runs planned, the
// scored runs there are, and how many are missing. Pure: over the scoring input's aggregates,
// which count scored runs only (not deleted, not from an excluded validator), and its miners, whose
// excluded ones take part in nothing (SPEC 6) and so have no pairs.
import { ascending } from './ascending.js';
import type { EntryList, MinerTaskSummary, ScoringMiner, ScoringTask, Stage } from './types.js';

/** The miner of a baseline pair. */
export const BASELINE = 'baseline';

export interface CoveragePair {
  taskId: string;
  /** A miner hotkey, or `baseline`. */
  miner: string;
  planned: number;
  have: number;
  missing: number;
}

/** A metagraph's miners (SPEC 13): its neurons at a uid other than `burnUid`, not marked `validator`. */
export function registeredMiners(metagraph: {
  neurons: readonly { uid: number; hotkey: string; validator?: boolean }[];
  burnUid: number;
}): { uid: number; hotkey: string }[] {
  return metagraph.neurons
    .filter((n) => n.validator !== true && n.uid !== metagraph.burnUid)
    .map((n) => ({ uid: n.uid, hotkey: n.hotkey }));
}

const pair = (taskId: string, miner: string, planned: number, have: number): CoveragePair => ({
  taskId,
  miner,
  planned,
  have,
  missing: Math.max(0, planned - have),
});

/**
 * Every pair of the stages' tasks, ordered by task id, then the baseline, then miners by hotkey
 * (`compareKeys`). The miners are those seen in a scored run on any task of the competition, and
 * the `registered` hotkeys of the metagraph in force (`registeredMiners`), runs or not, less those
 * `listed` as excluded (by any of their entries, as the scores read them: scoreTasks); `planned`
 * is the task's plannedRuns, else `defaultPlanned` (the competition's setting).
 */
export function coveragePairs(
  tasks: readonly ScoringTask[],
  minerTasks: EntryList<MinerTaskSummary>,
  stages: readonly Stage[],
  defaultPlanned: number,
  registered: readonly string[] = [],
  listed: readonly ScoringMiner[] = [],
): CoveragePair[] {
  const excluded = new Set<string>();
  for (const m of listed) if (m.excluded) excluded.add(m.hotkey);
  const runs = new Map<string, Map<string, number>>();
  const miners = new Set<string>();
  for (const hotkey of registered) if (!excluded.has(hotkey)) miners.add(hotkey);
  for (const e of minerTasks) {
    if (e.runs <= 0 || excluded.has(e.hotkey)) continue;
    miners.add(e.hotkey);
    let byMiner = runs.get(e.taskId);
    if (!byMiner) runs.set(e.taskId, (byMiner = new Map<string, number>()));
    byMiner.set(e.hotkey, e.runs);
  }
  const hotkeys = [...miners].sort(ascending);
  const chosen = tasks.filter((t) => stages.includes(t.stage)).sort((a, b) => ascending(a.id, b.id));
  const pairs: CoveragePair[] = [];
  for (const t of chosen) {
    const planned = t.plannedRuns ?? defaultPlanned;
    pairs.push(pair(t.id, BASELINE, planned, t.baseline.runs));
    const byMiner = runs.get(t.id);
    for (const hotkey of hotkeys) pairs.push(pair(t.id, hotkey, planned, byMiner?.get(hotkey) ?? 0));
  }
  return pairs;
}

/** The order of `coveragePairs`: task id, then the baseline before every miner, then hotkey. */
export function compareKeys(a: { taskId: string; miner: string }, b: { taskId: string; miner: string }): number {
  if (a.taskId !== b.taskId) return ascending(a.taskId, b.taskId);
  if (a.miner === b.miner) return 0;
  if (a.miner === BASELINE) return -1;
  if (b.miner === BASELINE) return 1;
  return ascending(a.miner, b.miner);
}
