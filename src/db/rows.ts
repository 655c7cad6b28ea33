// Row types both engines answer with, written out rather than inferred from either engine's table
// declarations (src/db/schema.ts, src/db/pg/schema.ts), which test/db/pgSchema.test.ts keeps equal.
// The rest of the contract's types stand beside the SQLite repository that first needed them
// (tasks, snapshots...): plain interfaces with no engine in them. src/db/contract.ts gathers them.
import type { Complexity, Criterion, CriterionGrade, Polarity, Stage } from '../scoring/types.js';

export interface MinerRow {
  competitionId: string;
  hotkey: string;
  excluded: boolean;
  reason: string | null;
}

export interface ValidatorRow {
  id: string;
  name: string;
  /** SHA-256 of the key's secret part; null for a signing validator. */
  keyHash: string | null;
  hotkey: string | null;
  publicKey: string | null;
  createdAt: string;
  revokedAt: string | null;
  lastSeenAt: string | null;
  version: string | null;
  codeDigest: string | null;
}

/** A validator's recorded standing in a competition. */
export interface ValidatorStanding {
  competitionId: string;
  validatorId: string;
  excluded: boolean;
  reason: string | null;
  updatedAt: string;
}

/** A stored task with its baseline aggregates and its run count. */
export interface TaskRow {
  competitionId: string;
  id: string;
  type: string;
  stage: string;
  complexity: string | null;
  plannedRuns: number | null;
  /** QnA metadata without the rubric, as stored (JSON). */
  qna: unknown;
  baselineRuns: number;
  baselineResolved: number;
  baselineTokenCount: number;
  baselineInputSum: number;
  baselineCachedSum: number;
  baselineOutputSum: number;
  runCount: number;
}

/** A task's criterion with its grading counts. */
export interface CriterionRow {
  competitionId: string;
  taskId: string;
  id: string;
  position: number;
  title: string;
  type: string;
  importance: string;
  originalTitle: string;
  change: string | null;
  graded: number;
  met: number;
  split: number;
}

export interface StoredVote {
  criterionId: string;
  votes: { verdict: 'YES' | 'NO'; reason?: string; evidence?: string }[];
}

export interface RunRecord {
  competitionId: string;
  runId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey: string | null;
  validatorId: string | null;
  attemptNo: number | null;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
  timeTakenSeconds: number | null;
  agentSteps: number | null;
  rubricVotes: StoredVote[] | null;
  /**
   * `rubricVotes` as the JSON text they were sent in, when the batch's body gave it
   * (src/services/votesText.ts): stored as such on SQLite, not serialized again.
   */
  votesJson?: string | null;
  criteria: CriterionGrade[] | null;
  /** The judge configuration a QnA run was graded under (SPEC 12); null (or absent) when none was named. */
  judgeDigest?: string | null;
  /** The answer date the validator put into the judge's prompt (ISO 8601 date). */
  answerDate?: string | null;
}

export interface StoredRun extends RunRecord {
  /** Storage sequence: grows with every insert and deletion in the database, never reused. */
  seq: number;
  createdAt: string;
}

/** Filters of a run listing (API.md 1.1); `after` is the sequence to continue from. */
export interface RunFilter {
  validatorId?: string;
  minerHotkey?: string;
  taskId?: string;
  kind?: 'baseline' | 'miner';
  after?: number;
  limit: number;
}

export type TaskType = 'swebench_verified' | 'swe_atlas_qna';

export interface CriterionRecord {
  id: string;
  title: string;
  type: Polarity;
  importance: string;
  originalTitle: string;
  change: string | null;
}

export interface QnaMeta {
  prompt: string;
  referenceAnswer: string;
  repositoryUrl: string;
  repositoryBaseCommit: string;
  language: string;
  category: string;
  dockerImage: string;
}

export interface TaskRecord {
  id: string;
  type: TaskType;
  stage: Stage;
  complexity: Complexity | null;
  plannedRuns: number | null;
  qna: QnaMeta | null;
  rubric: CriterionRecord[];
  /** Sent without QnA content: an existing task of the same type keeps its stored content. */
  keepContent?: boolean;
}

/** What run ingestion needs of a task. */
export interface Rubric {
  type: string;
  criteria: Criterion[];
}

/** One version of a document kept per competition (a judge configuration, a metagraph). */
export interface VersionedDocument {
  competitionId: string;
  version: number;
  recordedAt: string;
  /** Canonical JSON (RFC 8785) of the document. */
  document: string;
  digest: string;
}
