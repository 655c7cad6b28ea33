// The coverage read (API.md 1.2, SPEC 13): the pairs chosen by miner and task, their summary, and
// one page of them (only those missing runs, when asked) after a cursor.
import { compareKeys, type CoveragePair } from '../scoring/coverage.js';
import type { Stage } from '../scoring/types.js';

export interface CoverageQuery {
  miner?: string;
  task?: string;
  missing?: boolean;
  limit: number;
  /** `taskId/miner` of the last pair of the previous page. */
  cursor?: { taskId: string; miner: string };
}

/** The first index whose pair comes after `key` in the pairs' order. */
function after(pairs: readonly CoveragePair[], key: { taskId: string; miner: string }): number {
  let lo = 0;
  let hi = pairs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(pairs[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const cursorOf = (p: { taskId: string; miner: string }) => `${p.taskId}/${p.miner}`;

/**
 * The body. The summary covers every pair the miner and task filters choose (not only the page,
 * nor only those missing runs): `complete` is true when none of them is missing a run.
 */
export function coverageBody(competitionId: string, stages: Stage[], all: readonly CoveragePair[], q: CoverageQuery) {
  const chosen = (p: CoveragePair) =>
    (q.miner === undefined || p.miner === q.miner) && (q.task === undefined || p.taskId === q.task);
  const summary = { pairs: 0, planned: 0, have: 0, missing: 0, complete: true };
  for (const p of all) {
    if (!chosen(p)) continue;
    summary.pairs++;
    summary.planned += p.planned;
    summary.have += p.have;
    summary.missing += p.missing;
  }
  summary.complete = summary.missing === 0;

  const pairs: CoveragePair[] = [];
  let nextCursor: string | null = null;
  for (let i = q.cursor ? after(all, q.cursor) : 0; i < all.length; i++) {
    const p = all[i]!;
    if (!chosen(p) || (q.missing && p.missing === 0)) continue;
    if (pairs.length === q.limit) {
      nextCursor = cursorOf(pairs[pairs.length - 1]!);
      break;
    }
    pairs.push(p);
  }
  return { competitionId, stages, summary, pairs, nextCursor };
}
