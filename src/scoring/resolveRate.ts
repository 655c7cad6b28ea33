/**
 * SPEC 7 Task Resolve Rate: resolved runs over graded runs. Null when nothing was graded: no
 * runs is no rate, not 0 and not a vacuous 1.
 */
export function resolveRate(resolved: number, graded: number): number | null {
  if (!Number.isFinite(resolved) || !Number.isFinite(graded) || graded <= 0) return null;
  return resolved / graded;
}
