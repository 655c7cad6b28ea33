// The PostgreSQL schema: src/db/schema.ts table by table, with the same table and
// column names, nullability, keys and defaults, so one repository interface can sit on either
// engine and a database can be copied between them. test/db/pgSchema.test.ts holds the two
// together. The choices, argued in docs/POSTGRES.md:
// - SQLite INTEGER is 64-bit. Counts that stay small (runs per task, votes, positions) are
//   `integer`; raw token counts, their sums, sequences and millisecond times are `bigint` read
//   as JS numbers. A number is exact only up to 2^53 - 1, so every token column carries a CHECK
//   that keeps it in [0, 2^53 - 1]: a write that would make a sum inexact in JS is refused in
//   its transaction instead of being read back rounded.
// - SQLite REAL is an 8-byte double: `double precision`, never `real` (4 bytes).
// - Booleans are `boolean`.
// - JSON is `text` holding JSON.stringify's output, as SQLite's json mode does: the bytes read
//   back are the bytes written (jsonb would reorder keys and drop duplicates, and key order shows
//   in API bodies), and nothing queries inside it.
// - Times are ISO 8601 text with milliseconds and a Z, the format SQLite's default writes.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** JSON kept as the text JSON.stringify gives, read back with JSON.parse (SQLite's json mode). */
const jsonText = <T = unknown>(name: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);

/** A bigint read as a JS number; only exact where a CHECK keeps it within 2^53 - 1 (`exact`). */
const int64 = (name: string) => bigint(name, { mode: 'number' });

/** The largest integer a JS number holds exactly. */
const MAX_EXACT = sql.raw(String(Number.MAX_SAFE_INTEGER));
/** CHECK that each column is NULL or an integer in [0, 2^53 - 1]. */
const exact = (name: string, columns: string[]) =>
  check(
    name,
    sql.join(
      columns.map((c) => sql`${sql.identifier(c)} BETWEEN 0 AND ${MAX_EXACT}`),
      sql` AND `,
    ),
  );

/** Now, in UTC, as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ','now') writes it. */
const nowText = sql`to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const createdAt = (name = 'created_at') => text(name).notNull().default(nowText);

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
export const runs = pgTable(
  'runs',
  { ...runColumns(), seq: int64('seq').primaryKey().generatedAlwaysAsIdentity() },
  (t) => [
    uniqueIndex('runs_competition_run').on(t.competitionId, t.runId),
    foreignKey({ columns: [t.competitionId, t.taskId], foreignColumns: [tasks.competitionId, tasks.id] }),
    exact('runs_tokens_exact', TOKEN_COLUMNS),
  ],
);

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

export const auditLog = pgTable(
  'audit_log',
  {
    seq: int64('seq').primaryKey().generatedAlwaysAsIdentity(),
    at: createdAt('at'),
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    competitionId: text('competition_id'),
    target: text('target').notNull(),
    summary: jsonText('summary').notNull(),
  },
  (t) => [index('audit_log_competition').on(t.competitionId, t.seq)],
);

export const snapshots = pgTable(
  'snapshots',
  {
    competitionId: text('competition_id').notNull(),
    seq: integer('seq').notNull(),
    takenAt: text('taken_at').notNull(),
    runSeq: int64('run_seq').notNull(),
    document: text('document').notNull(),
    inputHead: text('input_head').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.seq] })],
);

/**
 * PostgreSQL only: each competition's write version. Every write transaction of a competition
 * bumps its row first, which (a) serializes the competition's writers, so run sequence order and
 * commit order agree within it (a snapshot at sequence S never later finds a run <= S it did not
 * see), and (b) lets a server process see, with one small read, whether another process wrote
 * since it cached the competition's scores. SQLite has one writer process and needs neither.
 */
export const competitionVersions = pgTable('competition_versions', {
  competitionId: text('competition_id').primaryKey(),
  version: int64('version').notNull(),
  /**
   * The versions from `stamped_from` to `stamped_through` were all written by transactions that
   * stamped the (task, miner) pairs they changed in pair_versions: a process whose pairs stand for
   * a version in that span reads only the pairs stamped after it (src/db/pg/scoringInput.ts). A
   * write that stamps nothing (a server from before migration 0010, which bumps `version` alone)
   * breaks the span; one that rebuilds every aggregate starts it after itself.
   */
  stampedFrom: int64('stamped_from').notNull().default(0),
  stampedThrough: int64('stamped_through').notNull().default(0),
});

/**
 * PostgreSQL only: per (task, miner) pair of a competition, the version of the last write that
 * changed its miner_tasks row, removed rows included. Another process catches up with a
 * competition by reading the pairs stamped after the version it holds, not every pair.
 */
export const pairVersions = pgTable(
  'pair_versions',
  {
    competitionId: text('competition_id').notNull(),
    taskId: text('task_id').notNull(),
    hotkey: text('hotkey').notNull(),
    version: int64('version').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.competitionId, t.taskId, t.hotkey] }),
    index('pair_versions_version').on(t.competitionId, t.version),
  ],
);

/**
 * PostgreSQL's saved scores (src/db/pg/savedScores.ts): each competition's final-stage scores as a
 * server process held them when it last shut down, with the competition's version they stand for.
 * A start restores a row only while competition_versions still holds that version, so no trigger
 * is needed: any write since, by any process, bumped the version. SQLite's table of the same name
 * has no version; its triggers delete a row instead (migration 0004 of migrations/).
 */
export const savedScores = pgTable('saved_scores', {
  competitionId: text('competition_id').primaryKey(),
  /** The scoring code's identity (src/services/scoringCode.ts): scores from other code are not used. */
  code: text('code').notNull(),
  /** The stage set scored, comma-separated. */
  stages: text('stages').notNull(),
  /** The competition's version (competition_versions) the scores stand for. */
  version: int64('version').notNull(),
  /** The scores (CompetitionScores without per-task entries), JSON. */
  scores: text('scores').notNull(),
  savedAt: text('saved_at').notNull(),
});

export const metagraphs = pgTable(
  'metagraphs',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    recordedAt: createdAt('recorded_at'),
    document: text('document').notNull(),
    digest: text('digest').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.version] })],
);

export const signingKeys = pgTable('signing_keys', {
  position: integer('position').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  publicKey: text('public_key').notNull(),
  recordedAt: createdAt('recorded_at'),
  starts: text('starts').notNull(),
});

export const judges = pgTable(
  'judges',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    recordedAt: createdAt('recorded_at'),
    document: text('document').notNull(),
    digest: text('digest').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.version] }), index('judges_digest').on(t.competitionId, t.digest)],
);
