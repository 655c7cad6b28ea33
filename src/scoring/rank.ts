import { ascending } from './ascending.js';
import { nearlyEqual } from './nearlyEqual.js';

export interface Rankable {
  hotkey: string;
  normalizedScore: number | null;
}

export interface Ranked<T> {
  item: T;
  rank: number | null;
}

function byHotkey(a: Rankable, b: Rankable): number {
  return ascending(a.hotkey, b.hotkey);
}

/**
 * SPEC 5 leaderboard: S_N descending, then hotkey ascending; ranks are 1-based and scores
 * within 1e−12 share a rank (1, 2, 2, 4). Miners without a score follow, by hotkey, unranked.
 *
 * A tie group is everything within 1e−12 of its first (highest) member, so a chain of tiny gaps
 * cannot drift into one long tie; inside a group the order is by hotkey alone.
 */
export function rank<T extends Rankable>(items: readonly T[]): Ranked<T>[] {
  const scored: T[] = [];
  const unscored: T[] = [];
  for (const item of items) {
    const s = item.normalizedScore;
    (s !== null && Number.isFinite(s) ? scored : unscored).push(item);
  }
  scored.sort((a, b) => (b.normalizedScore as number) - (a.normalizedScore as number) || byHotkey(a, b));
  unscored.sort(byHotkey);

  const out: Ranked<T>[] = [];
  let start = 0;
  while (start < scored.length) {
    const lead = (scored[start] as T).normalizedScore as number;
    let end = start + 1;
    while (end < scored.length && nearlyEqual(lead, (scored[end] as T).normalizedScore as number)) end++;
    for (const item of scored.slice(start, end).sort(byHotkey)) out.push({ item, rank: start + 1 });
    start = end;
  }
  for (const item of unscored) out.push({ item, rank: null });
  return out;
}
