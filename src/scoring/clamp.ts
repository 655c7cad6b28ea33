/**
 * Bounds `value` to [lo, hi]. Every range in SPEC 3–5 is closed, so both ends are reachable.
 * NaN is passed through unchanged: callers never produce it from valid input, and hiding it
 * behind a bound would make a bug look like a legitimate extreme score.
 */
export function clamp(value: number, lo: number, hi: number): number {
  if (value < lo) return lo;
  if (value > hi) return hi;
  return value;
}
