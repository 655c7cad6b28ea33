// The validated, camelCase form of one SWE-Atlas-QnA-AA row (API.md `qna`, SPEC section 7).

/** Longest prompt or reference answer accepted, in UTF-16 code units (String.length).
 *  The real data peaks at 3,136 (prompt) and 30,000 (reference answer); 200,000 leaves
 *  room for longer tasks while keeping one row well under a megabyte. */
export const MAX_PROMPT_LENGTH = 200_000;
export const MAX_REFERENCE_ANSWER_LENGTH = 200_000;
/** Longest criterion title or original title (the real data peaks at 376). */
export const MAX_TITLE_LENGTH = 4_000;
/** Longest of every other text field: category, docker image, repository (real peak 110). */
export const MAX_FIELD_LENGTH = 512;

/**
 * GitHub owner/name; "." and ".." are refused as either part so the value can never act as a path
 * segment that climbs out of a directory or URL.
 */
export const REPOSITORY_PATTERN = /^(?!\.\.?\/)[A-Za-z0-9_.-]+\/(?!\.\.?$)[A-Za-z0-9_.-]+$/;
export const TASK_ID_PATTERN = /^[0-9a-f]{24}$/;
export const COMMIT_PATTERN = /^[0-9a-f]{40}$/;
export const CRITERION_ID_PATTERN = /^[0-9a-f]{32}$/;

export const QNA_LANGUAGES = ['go', 'python', 'c', 'ts'] as const;
export type QnaLanguage = (typeof QNA_LANGUAGES)[number];

/** How the AA edition changed a criterion relative to Scale's text (null: unchanged). */
export const CRITERION_CHANGES = ['stability', 'precision', 'scale-correction'] as const;
export type CriterionChange = (typeof CRITERION_CHANGES)[number];

export interface QnaCriterion {
  id: string;
  /** The text graded, verbatim (leading numbering and trailing whitespace included). */
  title: string;
  /** positive: the answer must make the claim; negative: it must not (met on a NO verdict). */
  type: 'positive' | 'negative';
  importance: 'must have';
  /** Scale's text; equal to `title` when the row did not give one. */
  originalTitle: string;
  change: CriterionChange | null;
}

export interface QnaTask {
  id: string;
  prompt: string;
  referenceAnswer: string;
  /** GitHub `owner/name`. */
  repositoryUrl: string;
  repositoryBaseCommit: string;
  language: QnaLanguage;
  category: string;
  dockerImage: string;
  rubric: QnaCriterion[];
}
