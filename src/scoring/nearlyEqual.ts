/** Tolerance for shared ranks and tied contest winners (SPEC 5, 6). */
export const TIE_EPSILON = 1e-12;

/**
 * True when `a` and `b` differ by at most 1e−12, absolutely or relative to the larger of the
 * two. Scores reached by different summation paths can differ in the last bits; such miners
 * must still share a rank or split an element instead of one winning by rounding noise.
 */
export function nearlyEqual(a: number, b: number): boolean {
  const diff = Math.abs(a - b);
  return diff <= TIE_EPSILON || diff <= TIE_EPSILON * Math.max(Math.abs(a), Math.abs(b));
}
