// What the server records beside the scoring data: the audit log, snapshots, the scores saved at
// shutdown, metagraphs, signing keys and judge configurations (./scoring.ts has the rest).
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { competitions } from './scoring.js';

/** Append-only record of every admin write and every run deletion. No route updates or deletes a row. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    at: text('at')
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    competitionId: text('competition_id'),
    target: text('target').notNull(),
    summary: text('summary', { mode: 'json' }).notNull(),
  },
  (t) => [index('audit_log_competition').on(t.competitionId, t.seq)],
);

/** Immutable score snapshots in a hash chain per competition (API.md 1.1). */
export const snapshots = sqliteTable(
  'snapshots',
  {
    competitionId: text('competition_id').notNull(),
    seq: integer('seq').notNull(),
    takenAt: text('taken_at').notNull(),
    /** The run sequence at the snapshot: its input is the runs with seq <= runSeq still live then. */
    runSeq: integer('run_seq').notNull(),
    /** The whole snapshot document as published (canonical JSON), hash and signature included. */
    document: text('document').notNull(),
    /** The competition line and task lines of its input document, as they stood (canonical JSON). */
    inputHead: text('input_head').notNull(),
    hash: text('hash').notNull(),
    // The parts the list and history reads answer with (src/db/snapshots.ts SnapshotParts), so
    // that they read no document: set by every insert, and for older rows by migration 0010.
    summary: text('summary'),
    finalWeights: text('final_weights'),
    burnWeight: real('burn_weight'),
    miners: text('miners'),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.seq] })],
);

/**
 * Each competition's final-stage scores as the server held them when it last shut down, so a
 * restart answers the first reads without computing them (src/db/savedScores.ts). Only a row no
 * write has touched since is there: triggers (migration 0004) delete a competition's row on any
 * change to its settings, tasks, miners or aggregates, whichever process makes it. SQLite only.
 */
export const savedScores = sqliteTable('saved_scores', {
  competitionId: text('competition_id').primaryKey(),
  /** The scoring code's identity (src/services/scoringCode.ts): scores from other code are not used. */
  code: text('code').notNull(),
  /** The stage set scored, comma-separated (the competition's final stages when saved). */
  stages: text('stages').notNull(),
  /** The scores (CompetitionScores without per-task entries), JSON. */
  scores: text('scores').notNull(),
  savedAt: text('saved_at').notNull(),
});

/**
 * Every metagraph the operator recorded for a competition (SPEC 11), kept forever: the highest
 * `version` is in force, and a snapshot's input names the one it used by digest.
 */
export const metagraphs = sqliteTable(
  'metagraphs',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    recordedAt: text('recorded_at')
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    /** The metagraph as recorded, defaults filled in, canonical JSON (RFC 8785). */
    document: text('document').notNull(),
    /** SHA-256, lower-case hex, of `document`. */
    digest: text('digest').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.version] })],
);

/**
 * Every snapshot-signing key the server has started with, in the order it came into force
 * (src/services/signingKeys.ts). `starts` says where each took over: per competition, the seq of
 * the first snapshot it signs (JSON object; a competition absent had no snapshot then, and starts
 * at 1). GET /v1/identity lists them, with the snapshots each signed.
 */
export const signingKeys = sqliteTable('signing_keys', {
  position: integer('position').primaryKey(),
  /** SHA-256, lower-case hex, of the public key's SPKI DER. */
  fingerprint: text('fingerprint').notNull(),
  /** SPKI PEM. */
  publicKey: text('public_key').notNull(),
  recordedAt: text('recorded_at')
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  starts: text('starts').notNull(),
});

/**
 * Every judge configuration the operator set for a competition (SPEC 12), kept forever: the
 * highest `version` is in force; a QnA run names the one it was graded under by digest.
 */
export const judges = sqliteTable(
  'judges',
  {
    competitionId: text('competition_id')
      .notNull()
      .references(() => competitions.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    recordedAt: text('recorded_at')
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    /** The configuration as set, canonical JSON (RFC 8785). */
    document: text('document').notNull(),
    /** SHA-256, lower-case hex, of `document`. */
    digest: text('digest').notNull(),
  },
  (t) => [primaryKey({ columns: [t.competitionId, t.version] }), index('judges_digest').on(t.competitionId, t.digest)],
);
