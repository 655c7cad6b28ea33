// The one shape every QnA import failure takes, so a caller can report
// "row N, field F: message" whatever stage (reading or validating) found it.

/** One thing wrong with an import. `row` is 1-based; null when the file as a whole is bad. */
export interface QnaProblem {
  row: number | null;
  /** Column or JSON path inside the row, e.g. `rubric[3].id` (array indexes are 0-based). */
  field: string;
  message: string;
}

/** Thrown by the readers when the bytes cannot be turned into rows at all. */
export class QnaImportError extends Error {
  readonly problems: QnaProblem[];

  constructor(problems: QnaProblem[]) {
    super(problems.map((p) => `${p.row === null ? '' : `row ${p.row}, `}${p.field}: ${p.message}`).join('; '));
    this.name = 'QnaImportError';
    this.problems = problems;
  }
}
