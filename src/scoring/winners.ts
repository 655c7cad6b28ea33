import { ascending } from './ascending.js';
import { nearlyEqual } from './nearlyEqual.js';

export interface ContestEntry {
  hotkey: string;
  score: number;
}

/**
 * SPEC 6 winners of one element: every entry whose contest score equals the best within 1e−12
 * (relative or absolute), sorted by hotkey. A negative best still wins: the element goes to the
 * least bad. No entry: no winner and a null winning score, never a vacuous one.
 */
export function winners(entries: readonly ContestEntry[]): {
  winners: string[];
  winningScore: number | null;
} {
  let best = -Infinity;
  for (const e of entries) if (e.score > best) best = e.score;
  if (best === -Infinity) return { winners: [], winningScore: null };
  const won: string[] = [];
  for (const e of entries) if (nearlyEqual(e.score, best)) won.push(e.hotkey);
  return { winners: won.sort(ascending), winningScore: best };
}
