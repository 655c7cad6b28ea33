// A QnA task's complexity bucket from its rubric size: more criteria to meet means a longer,
// harder answer. Thresholds split the real data (5 to 26 criteria, median 10) in three.

export type QnaComplexity = 'short' | 'medium' | 'long';

/** Up to 8 criteria: short; 9 to 12: medium; 13 or more: long. Null when `n` is not a
 *  positive integer (no rubric, no complexity), never a throw. */
export function complexityForRubricSize(n: number): QnaComplexity | null {
  if (!Number.isInteger(n) || n < 1) return null;
  if (n <= 8) return 'short';
  if (n <= 12) return 'medium';
  return 'long';
}
