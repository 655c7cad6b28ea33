// The PostgreSQL scoring data: competitions, tasks, runs and their aggregates (./columns.ts has the
// column kinds and why; src/db/schema/scoring.ts is the same on SQLite).
import {
  boolean,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { jsonText, int64, exact, createdAt } from './columns.js';

export const competitions = pgTable('competitions', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  weightInput: doublePrecision('weight_input').notNull().default(1),
  weightCachedInput: doublePrecision('weight_cached_input').notNull().default(0.1),
  weightOutput: doublePrecision('weight_output').notNull().default(3),
  burnRatio: doublePrecision('burn_ratio').notNull().default(0),
  judgeVotes: integer('judge_votes').notNull().default(5),
  finalStages: jsonText<string[]>('final_stages').notNull(),
  createdAt: createdAt(),
  updatedAt: createdAt('updated_at'),
  // Last, where SQLite's 1.1 migration added it: both engines give the columns in one order.
  revealAnswers: boolean('reveal_answers').notNull().default(false),
  /** The validators that may write to the competition, by id, sorted (JSON); null: every validator. */
  allowedValidators: jsonText<string[]>('allowed_validators'),
  plannedRuns: integer('planned_runs').notNull().default(5),
  minValidatorVersion: text('min_validator_version'),
});

export const tasks = pgTable(
  'tasks',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    type: text('type').notNull(),
    stage: text('stage').notNull(),
    complexity: text('complexity'),
    plannedRuns: integer('planned_runs'),
    qna: jsonText('qna'),
    baselineRuns: integer('baseline_runs').notNull().default(0),
    baselineResolved: integer('baseline_resolved').notNull().default(0),
    baselineTokenCount: integer('baseline_token_count').notNull().default(0),
    baselineInputSum: int64('baseline_input_sum').notNull().default(0),
    baselineCachedSum: int64('baseline_cached_sum').notNull().default(0),
    baselineOutputSum: int64('baseline_output_sum').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.id] }),
    exact('tasks_baseline_sums_exact', ['baseline_input_sum', 'baseline_cached_sum', 'baseline_output_sum']),
  ],
);

/** Runs stored per task, apart from the wide tasks rows (as in SQLite, src/db/schema.ts). */
export const taskRunCounts = pgTable(
  'task_run_counts',
  {
    competitionId: text('competition_id').notNull(),
    taskId: text('task_id').notNull(),
    runs: integer('runs').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.taskId] }),
    foreignKey({ columns: [t.competitionId, t.taskId], foreignColumns: [tasks.competitionId, tasks.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const taskCriteria = pgTable(
  'task_criteria',
  {
    competitionId: text('competition_id').notNull(),
    taskId: text('task_id').notNull(),
    id: text('id').notNull(),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    type: text('type').notNull(),
    importance: text('importance').notNull(),
    originalTitle: text('original_title').notNull(),
    change: text('change'),
    graded: integer('graded').notNull().default(0),
    met: integer('met').notNull().default(0),
    split: integer('split').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.taskId, t.id] }),
    foreignKey({ columns: [t.competitionId, t.taskId], foreignColumns: [tasks.competitionId, tasks.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const validators = pgTable('validators', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  keyHash: text('key_hash'),
  hotkey: text('hotkey'),
  publicKey: text('public_key').unique(),
  createdAt: createdAt(),
  revokedAt: text('revoked_at'),
  lastSeenAt: text('last_seen_at'),
  version: text('version'),
  codeDigest: text('code_digest'),
});

export const miners = pgTable(
  'miners',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    hotkey: text('hotkey').notNull(),
    excluded: boolean('excluded').notNull().default(false),
    reason: text('reason'),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.hotkey] })],
);

const TOKEN_COLUMNS = ['tokens_input', 'tokens_cached_input', 'tokens_output'];

/** Columns of a stored run, shared by `runs` and `deleted_runs`. */
const runColumns = () => ({
  seq: int64('seq').notNull(),
  competitionId: text('competition_id').notNull(),
  runId: text('run_id').notNull(),
  taskId: text('task_id').notNull(),
  kind: text('kind').notNull(),
  minerHotkey: text('miner_hotkey'),
  validatorId: text('validator_id'),
  attemptNo: integer('attempt_no'),
  resolved: boolean('resolved').notNull(),
  tokensInput: int64('tokens_input'),
  tokensCachedInput: int64('tokens_cached_input'),
  tokensOutput: int64('tokens_output'),
  timeTakenSeconds: doublePrecision('time_taken_seconds'),
  agentSteps: integer('agent_steps'),
  rubricVotes: jsonText('rubric_votes'),
  grading: jsonText('grading'),
  judgeDigest: text('judge_digest'),
  answerDate: text('answer_date'),
  createdAt: createdAt(),
});

// The run sequence is an identity: it grows with every insert and, through nextval() on the same
// sequence, every deletion (SQLite's AUTOINCREMENT counter). ALWAYS: no insert of the server
// names a sequence number; a copy from SQLite keeps them with OVERRIDING SYSTEM VALUE.
// No foreign key to tasks, unlike SQLite: runsTaskGuard below.
export const runs = pgTable(
  'runs',
  { ...runColumns(), seq: int64('seq').primaryKey().generatedAlwaysAsIdentity() },
  (t) => [uniqueIndex('runs_competition_run').on(t.competitionId, t.runId), exact('runs_tokens_exact', TOKEN_COLUMNS)],
);

/**
 * The runs' reference to their task, held on PostgreSQL by triggers rather than a foreign key
 * (migrations/pg/0011_runs_task_guard.sql, issue 41): the foreign key checked and locked the task
 * row by row, a third of a 1,000-run insert; the guard checks a statement's new runs at once. It
 * refuses what the foreign key refused (SQLSTATE 23503): a run whose task does not exist, a task
 * deleted, truncated or renamed while runs name it. drizzle-kit knows nothing of triggers, so the
 * reference is stated here for what reads the schema (src/db/tables.ts's table order,
 * test/db/pgSchema.test.ts).
 */
export const runsTaskGuard = {
  table: 'runs',
  columns: ['competition_id', 'task_id'],
  foreignTable: 'tasks',
  foreignColumns: ['competition_id', 'id'],
  triggers: {
    runs: ['runs_task_exists_insert', 'runs_task_exists_update'],
    tasks: ['tasks_runs_left_delete', 'tasks_runs_left_update', 'tasks_runs_left_truncate'],
  },
} as const;

export const deletedRuns = pgTable(
  'deleted_runs',
  {
    ...runColumns(),
    deletedSeq: int64('deleted_seq').notNull(),
    deletedAt: createdAt('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.deletedSeq] }),
    index('deleted_runs_seq').on(t.competitionId, t.seq),
    // A snapshot input's pages read the deleted runs by run id range, as they read the live ones.
    index('deleted_runs_run').on(t.competitionId, t.runId),
    exact('deleted_runs_tokens_exact', TOKEN_COLUMNS),
  ],
);

export const minerTasks = pgTable(
  'miner_tasks',
  {
    competitionId: text('competition_id').notNull(),
    taskId: text('task_id').notNull(),
    hotkey: text('hotkey').notNull(),
    runs: integer('runs').notNull().default(0),
    resolved: integer('resolved').notNull().default(0),
    tokenCount: integer('token_count').notNull().default(0),
    inputSum: int64('input_sum').notNull().default(0),
    cachedSum: int64('cached_sum').notNull().default(0),
    outputSum: int64('output_sum').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.hotkey, t.taskId] }),
    exact('miner_tasks_sums_exact', ['input_sum', 'cached_sum', 'output_sum']),
  ],
);

export const competitionValidators = pgTable(
  'competition_validators',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    validatorId: text('validator_id').notNull(),
    excluded: boolean('excluded').notNull().default(false),
    reason: text('reason'),
    updatedAt: createdAt('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.validatorId] })],
);

export const signatureNonces = pgTable(
  'signature_nonces',
  {
    publicKey: text('public_key').notNull(),
    uuid: text('uuid').notNull(),
    /** Unix milliseconds. */
    expiresAt: int64('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.publicKey, t.uuid] }), index('signature_nonces_expiry').on(t.expiresAt)],
);
