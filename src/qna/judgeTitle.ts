// What the judge is shown of a criterion (SPEC 12): its title without the numbering.

/**
 * A criterion title as the judge sees it (SPEC 12): without its leading numbering. The numbering is
 * a number (`1.7`) ended by `:`, `)` or a `.` that no digit follows (`1.7: `, `4. `, `3.2. `), or a
 * dotted number ended by a space (`1.1 `); a title that only begins with a number (`3 retries`,
 * `1.5x`) keeps it. A `.` followed by a digit is part of the number, never its end: `1.1 X` is not
 * `1.` then `1 X`. A numbering written twice (`1.1: 1.1: `, `1. 2: `, both in the real task set)
 * goes whole.
 */
const NUMBERING = /^\s*(?:(?:\d+(?:\.\d+)*\s*(?:[:)]|\.(?!\d))|\d+(?:\.\d+)+(?=\s))\s*)+/;
export const judgeTitle = (title: string) => title.replace(NUMBERING, '');

/** Why a criterion title cannot be taken when its numbering is all it has (the judge would be shown nothing). */
export const NOTHING_AFTER_NUMBERING = 'has nothing after its numbering: the judge would be shown an empty criterion';
export const showsJudgeNothing = (title: string) => judgeTitle(title).trim() === '';
