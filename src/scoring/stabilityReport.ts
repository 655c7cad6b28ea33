// The stability report (SPEC 12): for each kind of criterion change and each polarity, how many
// criteria there are and how their verdicts fare (met and split rates, SPEC 7), for the baseline,
// each miner and pooled. Pure: the storage layer hands it the criteria of the chosen stages and
// the counted runs' verdicts summed per (task, criterion, miner or baseline).
import type { Polarity } from './types.js';

/** The kinds of criterion change, in report order; null is an unchanged criterion. */
const CRITERION_CHANGES = [null, 'stability', 'precision', 'scale-correction'] as const;
const POLARITIES: readonly Polarity[] = ['positive', 'negative'];

/** A criterion of a task in the chosen stages. */
export interface ReportCriterion {
  taskId: string;
  id: string;
  type: Polarity;
  change: string | null;
}

/** The verdicts on one criterion of one task by one miner (hotkey) or the baseline (null). */
export interface CriterionTally {
  taskId: string;
  criterionId: string;
  hotkey: string | null;
  verdicts: number;
  met: number;
  split: number;
}

/** Verdicts, and how many of them were met and split, with their rates (null with no verdict). */
export interface VerdictStats {
  verdicts: number;
  met: number;
  split: number;
  metRate: number | null;
  splitRate: number | null;
}

export interface StabilityGroup {
  change: string | null;
  polarity: Polarity;
  criteria: number;
  pooled: VerdictStats;
  baseline: VerdictStats;
  miners: Record<string, VerdictStats>;
}

interface Counts {
  verdicts: number;
  met: number;
  split: number;
}

const zero = (): Counts => ({ verdicts: 0, met: 0, split: 0 });
const stats = (c: Counts): VerdictStats => ({
  ...c,
  metRate: c.verdicts === 0 ? null : c.met / c.verdicts,
  splitRate: c.verdicts === 0 ? null : c.split / c.verdicts,
});
const add = (into: Counts, t: Counts) => {
  into.verdicts += t.verdicts;
  into.met += t.met;
  into.split += t.split;
};

/** The order of a change kind: the known ones first in report order, any other after, by name. */
function changeOrder(a: string | null, b: string | null): number {
  const rank = (c: string | null) => {
    const i = (CRITERION_CHANGES as readonly (string | null)[]).indexOf(c);
    return i < 0 ? CRITERION_CHANGES.length : i;
  };
  return rank(a) - rank(b) || (a! < b! ? -1 : a! > b! ? 1 : 0);
}

/**
 * One group per (change, polarity) present among `criteria`, in change then polarity order.
 * Tallies on a criterion not among them (another stage's task, or a criterion since removed from
 * its rubric) count nowhere. Every miner with a tally on some criterion appears in every group,
 * hotkeys in byte order.
 */
export function stabilityReport(criteria: readonly ReportCriterion[], tallies: readonly CriterionTally[]) {
  const sums = stabilitySums(criteria);
  sums.add(tallies);
  return sums.groups();
}

/**
 * `stabilityReport` in parts: the tallies added a slice at a time (tallies of one key add up), so
 * a caller can let other work run between slices; `groups()` is the report of those added so far.
 */
export function stabilitySums(criteria: readonly ReportCriterion[]) {
  const key = (change: string | null, polarity: Polarity) => `${change ?? ''}\u0000${polarity}`;
  const groups = new Map<string, { change: string | null; polarity: Polarity; criteria: number }>();
  const groupOf = new Map<string, string>();
  for (const c of criteria) {
    const k = key(c.change, c.type);
    const g = groups.get(k);
    if (g) g.criteria++;
    else groups.set(k, { change: c.change, polarity: c.type, criteria: 1 });
    groupOf.set(`${c.taskId}\u0000${c.id}`, k);
  }
  const sums = new Map<string, { pooled: Counts; baseline: Counts; miners: Map<string, Counts> }>();
  const hotkeys = new Set<string>();
  return {
    add(tallies: readonly CriterionTally[]): void {
      for (const t of tallies) {
        const k = groupOf.get(`${t.taskId}\u0000${t.criterionId}`);
        if (k === undefined) continue;
        let s = sums.get(k);
        if (!s) sums.set(k, (s = { pooled: zero(), baseline: zero(), miners: new Map() }));
        add(s.pooled, t);
        if (t.hotkey === null) add(s.baseline, t);
        else {
          hotkeys.add(t.hotkey);
          let m = s.miners.get(t.hotkey);
          if (!m) s.miners.set(t.hotkey, (m = zero()));
          add(m, t);
        }
      }
    },
    groups(): StabilityGroup[] {
      const miners = [...hotkeys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return [...groups.entries()]
        .sort(
          ([, a], [, b]) =>
            changeOrder(a.change, b.change) || POLARITIES.indexOf(a.polarity) - POLARITIES.indexOf(b.polarity),
        )
        .map(([k, g]): StabilityGroup => {
          const s = sums.get(k);
          return {
            ...g,
            pooled: stats(s?.pooled ?? zero()),
            baseline: stats(s?.baseline ?? zero()),
            miners: Object.fromEntries(miners.map((h) => [h, stats(s?.miners.get(h) ?? zero())])),
          };
        });
    },
  };
}
