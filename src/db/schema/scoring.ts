// The database schema. Runs are the source of truth; `miner_tasks`, the baseline columns of
// `tasks` and the counters of `task_criteria` are aggregates kept up to date inside the same
// write transaction as the runs they summarize, so a score read never scans the runs table.
// Token aggregates hold integer sums of raw counts, not sums of weighted floats: they are
// exact and independent of insertion order, and deleting a run subtracts exactly.
//
// Write cost decides the layout: runs carry no secondary index, since every read goes
// through the aggregates and each index is one more B-tree page written per run; the aggregate
// tables, updated by primary key on every write, are WITHOUT ROWID in the migration (drizzle
// cannot declare that), so an update touches one B-tree instead of a table and its key index.
import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const competitions = sqliteTable('competitions', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  weightInput: real('weight_input').notNull().default(1),
  weightCachedInput: real('weight_cached_input').notNull().default(0.1),
  weightOutput: real('weight_output').notNull().default(3),
  burnRatio: real('burn_ratio').notNull().default(0),
  judgeVotes: integer('judge_votes').notNull().default(5),
  finalStages: text('final_stages', { mode: 'json' }).$type<string[]>().notNull(),
  /** When true, public task reads show QnA reference answers and rubrics (API.md 1.1). */
  revealAnswers: integer('reveal_answers', { mode: 'boolean' }).notNull().default(false),
  createdAt: text('created_at')
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text('updated_at')
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  /** The validators that may write to the competition, by id, sorted (JSON); null: every validator. */
  allowedValidators: text('allowed_validators', { mode: 'json' }).$type<string[]>(),
  /** Runs planned per (task, miner or baseline) where the task names none; serves coverage only (SPEC 13). */
  plannedRuns: integer('planned_runs').notNull().default(5),
  /** The oldest validator version (semver) whose writes are taken; null: any (SPEC 13). */
  minValidatorVersion: text('min_validator_version'),
});

export const tasks = sqliteTable(
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
    /** QnA metadata without the rubric (prompt, reference answer, repository...), JSON. */
    qna: text('qna', { mode: 'json' }),
    baselineRuns: integer('baseline_runs').notNull().default(0),
    baselineResolved: integer('baseline_resolved').notNull().default(0),
    /** Resolved baseline runs with a valid weighted count, and their raw token sums. */
    baselineTokenCount: integer('baseline_token_count').notNull().default(0),
    baselineInputSum: integer('baseline_input_sum').notNull().default(0),
    baselineCachedSum: integer('baseline_cached_sum').notNull().default(0),
    baselineOutputSum: integer('baseline_output_sum').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.id] })],
);

/**
 * Runs stored per task (baseline and miner, counted or not). Apart from `tasks`, whose rows carry
 * the QnA text: every batch bumps the count of each task it touches, and on the wide rows that
 * would dirty about a hundred pages a batch, here a few.
 */
export const taskRunCounts = sqliteTable(
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

export const taskCriteria = sqliteTable(
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

export const validators = sqliteTable('validators', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** SHA-256 of the key's secret part; the key itself is never stored. Null for a signing validator. */
  keyHash: text('key_hash'),
  /** A signing validator's ss58 hotkey as given, and its sr25519 public key (hex), by which it is found. */
  hotkey: text('hotkey'),
  publicKey: text('public_key').unique(),
  createdAt: text('created_at')
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  revokedAt: text('revoked_at'),
  /** The last heartbeat: when, and the version (semver) and code digest it announced. */
  lastSeenAt: text('last_seen_at'),
  version: text('version'),
  codeDigest: text('code_digest'),
});

export const miners = sqliteTable(
  'miners',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    hotkey: text('hotkey').notNull(),
    excluded: integer('excluded', { mode: 'boolean' }).notNull().default(false),
    reason: text('reason'),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.hotkey] })],
);

/** Columns of a stored run, shared by `runs` and `deleted_runs`. */
const runColumns = () => ({
  /** Storage sequence: grows with every insert and every deletion, never reused (AUTOINCREMENT). */
  seq: integer('seq').notNull(),
  competitionId: text('competition_id').notNull(),
  runId: text('run_id').notNull(),
  taskId: text('task_id').notNull(),
  kind: text('kind').notNull(),
  minerHotkey: text('miner_hotkey'),
  /** null when the admin token sent it. */
  validatorId: text('validator_id'),
  attemptNo: integer('attempt_no'),
  resolved: integer('resolved', { mode: 'boolean' }).notNull(),
  tokensInput: integer('tokens_input'),
  tokensCachedInput: integer('tokens_cached_input'),
  tokensOutput: integer('tokens_output'),
  timeTakenSeconds: real('time_taken_seconds'),
  agentSteps: integer('agent_steps'),
  rubricVotes: text('rubric_votes', { mode: 'json' }),
  grading: text('grading', { mode: 'json' }),
  /** The judge configuration a QnA run was graded under (SPEC 12); null when none was named. */
  judgeDigest: text('judge_digest'),
  /** The answer date the validator put into the judge's prompt (ISO 8601 date). */
  answerDate: text('answer_date'),
  createdAt: text('created_at')
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

// The run sequence is the rowid (INTEGER PRIMARY KEY): the same two B-trees as before (the table
// and the (competition, run id) key), and listing runs in sequence order reads the table in order.
export const runs = sqliteTable(
  'runs',
  { ...runColumns(), seq: integer('seq').primaryKey({ autoIncrement: true }) },
  (t) => [
    uniqueIndex('runs_competition_run').on(t.competitionId, t.runId),
    foreignKey({ columns: [t.competitionId, t.taskId], foreignColumns: [tasks.competitionId, tasks.id] }),
  ],
);

/**
 * Deleted runs, kept so that the input of an earlier snapshot can be given forever: a snapshot
 * taken at sequence S holds the runs with seq <= S, live or deleted after S (deletedSeq > S).
 */
export const deletedRuns = sqliteTable(
  'deleted_runs',
  {
    ...runColumns(),
    deletedSeq: integer('deleted_seq').notNull(),
    deletedAt: text('deleted_at')
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.deletedSeq] }),
    index('deleted_runs_seq').on(t.competitionId, t.seq),
    // A snapshot input's pages read the deleted runs by run id range, as they read the live ones.
    index('deleted_runs_run').on(t.competitionId, t.runId),
  ],
);

export const minerTasks = sqliteTable(
  'miner_tasks',
  {
    competitionId: text('competition_id').notNull(),
    taskId: text('task_id').notNull(),
    hotkey: text('hotkey').notNull(),
    runs: integer('runs').notNull().default(0),
    resolved: integer('resolved').notNull().default(0),
    /** Runs with a valid weighted count, and their raw token sums. */
    tokenCount: integer('token_count').notNull().default(0),
    inputSum: integer('input_sum').notNull().default(0),
    cachedSum: integer('cached_sum').notNull().default(0),
    outputSum: integer('output_sum').notNull().default(0),
  },
  // Miner first: a validator's batch is mostly one miner across many tasks, and in this order its
  // rows sit on a few adjacent pages (task first, they would spread over one page per task).
  (t) => [primaryKey({ columns: [t.competitionId, t.hotkey, t.taskId] })],
);

/** A validator's standing in one competition: an excluded validator's runs take part in no score. */
export const competitionValidators = sqliteTable(
  'competition_validators',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    validatorId: text('validator_id').notNull(),
    excluded: integer('excluded', { mode: 'boolean' }).notNull().default(false),
    reason: text('reason'),
    updatedAt: text('updated_at')
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.validatorId] })],
);

/** Epistula (public key, uuid) pairs seen, kept past the signature window so a replay is refused after a restart. */
export const signatureNonces = sqliteTable(
  'signature_nonces',
  {
    publicKey: text('public_key').notNull(),
    uuid: text('uuid').notNull(),
    /** Unix milliseconds after which the entry may go: its timestamp can no longer pass the window. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.publicKey, t.uuid] }), index('signature_nonces_expiry').on(t.expiresAt)],
);
