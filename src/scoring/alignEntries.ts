import type { EntryList } from './types.js';

/** How far `alignEntries` looks ahead for a run of removed or inserted entries. */
const LOOKAHEAD = 8;

/** How many entries from prev[i] and next[j] on are the same objects: one tight loop, which the JIT keeps optimized. */
function common<T>(prev: EntryList<T>, next: EntryList<T>, i: number, j: number): number {
  const n = Math.min(prev.length - i, next.length - j);
  let k = 0;
  while (k < n && prev.at(i + k) === next.at(j + k)) k++;
  return k;
}

/**
 * The entries of `next` that are not at their place in `prev`, and the entries of `prev` that are
 * not at their place in `next`, by identity: a walk of both lists side by side that steps over a
 * short run of entries removed from `prev` or inserted into `next`, and otherwise takes the two
 * entries in hand as one replaced by the other. A list whose entries keep their places (an entry
 * changed in place, a few removed, new ones last) costs one comparison per entry and yields
 * about as many entries as changed; any other list still yields every entry that is not the
 * same object at the same place, only more of them. Which entries are the same pair is for the
 * caller to find out (their task and hotkey); this only narrows down where to look.
 */
export function alignEntries<T>(prev: EntryList<T>, next: EntryList<T>): { added: T[]; gone: T[] } {
  const added: T[] = [];
  const gone: T[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const same = common(prev, next, i, j);
    i += same;
    j += same;
    if (j >= next.length) break;
    const b = next.at(j) as T;
    let removed = 1;
    while (removed <= LOOKAHEAD && i + removed < prev.length && prev.at(i + removed) !== b) removed++;
    if (removed <= LOOKAHEAD && i + removed < prev.length) {
      for (let k = 0; k < removed; k++) gone.push(prev.at(i + k) as T);
      i += removed;
      continue;
    }
    let inserted = 1;
    while (inserted <= LOOKAHEAD && j + inserted < next.length && next.at(j + inserted) !== prev.at(i)) inserted++;
    if (i < prev.length && inserted <= LOOKAHEAD && j + inserted < next.length) {
      for (let k = 0; k < inserted; k++) added.push(next.at(j + k) as T);
      j += inserted;
      continue;
    }
    added.push(b);
    j++;
    if (i < prev.length) gone.push(prev.at(i++) as T);
  }
  while (i < prev.length) gone.push(prev.at(i++) as T);
  return { added, gone };
}
