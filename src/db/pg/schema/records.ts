// What the PostgreSQL server records beside the scoring data: the audit log, snapshots, write
// versions and stamps, saved scores, metagraphs, signing keys and judge configurations
// (src/db/schema/records.ts is the same on SQLite, but for the write bookkeeping).
import { doublePrecision, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { jsonText, int64, createdAt } from './columns.js';
import { competitions } from './scoring.js';

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
    // src/db/schema/records.ts; filled for older rows by migration 0011. Text, not jsonb: the JSON
    // as written (jsonb would reorder the keys of the weights).
    summary: text('summary'),
    finalWeights: text('final_weights'),
    burnWeight: doublePrecision('burn_weight'),
    miners: text('miners'),
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
