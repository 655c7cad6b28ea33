// Validators: bearer-key validators (`swv_<id>_<secret>`, only SHA-256 of the secret stored; the
// secret is 32 random bytes, so a fast hash is enough) and signing validators (an sr25519 hotkey,
// found by its public key). Also each validator's standing in a competition.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { judgedSql, judgeInForceSql } from './aggregates.js';
import type { Db } from './client.js';
import { competitionValidators, validators } from './schema.js';
import type { ValidatorPairRuns } from '../scoring/agreement.js';

import type { ValidatorRow, ValidatorStanding } from './rows.js';
export type { ValidatorRow, ValidatorStanding };

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const KEY = /^swv_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

/** A pairRuns row as both engines read it: task, miner (null for the baseline), validator, runs, resolved. */
export type PairRunsRow = [string, string | null, string, number, number];
export const toPairRuns = ([taskId, hotkey, validatorId, runs, resolved]: PairRunsRow): ValidatorPairRuns => ({
  taskId,
  hotkey,
  validatorId,
  runs,
  resolved,
});

export function validatorsRepo(db: Db) {
  // Per (task, miner or baseline, validator) run counts over the tasks in some stages: a scan of
  // the competition's runs, read for the agreement table (SPEC 10) only.
  const pairRunsStmt = db.$client
    .prepare(
      `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END,
      r.validator_id, count(*), sum(r.resolved)
    FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
    WHERE r.competition_id = @id AND r.validator_id IS NOT NULL AND t.stage IN (SELECT value FROM json_each(@stages))
      AND ${judgedSql(judgeInForceSql)}
    GROUP BY r.task_id, r.kind, r.miner_hotkey, r.validator_id
    ORDER BY r.task_id, r.kind, r.miner_hotkey, r.validator_id`,
    )
    .raw();
  // Looked up on every signed request, a forged one's too: built once.
  const byPublicKeyStmt = db
    .select()
    .from(validators)
    .where(eq(validators.publicKey, sql.placeholder('publicKey')))
    .prepare();
  // Read on every request of a validator (its key, its version): built once.
  const byIdStmt = db
    .select()
    .from(validators)
    .where(eq(validators.id, sql.placeholder('id')))
    .prepare();
  const get = (id: string): ValidatorRow | null => byIdStmt.get({ id }) ?? null;

  return {
    get,
    /** Creates a bearer-key validator, or a signing one when `signer` is given (then no key). */
    create(
      name: string,
      signer?: { hotkey: string; publicKey: string },
    ): { validator: ValidatorRow; apiKey: string | null } {
      const id = randomUUID().replaceAll('-', '');
      if (signer) {
        db.insert(validators).values({ id, name, hotkey: signer.hotkey, publicKey: signer.publicKey }).run();
        return { validator: get(id)!, apiKey: null };
      }
      const secret = randomBytes(32).toString('base64url');
      db.insert(validators)
        .values({ id, name, keyHash: sha256(secret).toString('hex') })
        .run();
      return { validator: get(id)!, apiKey: `swv_${id}_${secret}` };
    },
    list(): ValidatorRow[] {
      return db.select().from(validators).orderBy(asc(validators.createdAt), asc(validators.id)).all();
    },
    /** The validator holding this sr25519 public key (hex), revoked or not. */
    byPublicKey(publicKey: string): ValidatorRow | null {
      return byPublicKeyStmt.get({ publicKey }) ?? null;
    },
    /**
     * Records a heartbeat: one row written, nothing else (no audit entry, no write event: liveness
     * is no part of any score). The row as written; null when there is no such validator.
     */
    heartbeat(id: string, version: string, codeDigest: string | null): ValidatorRow | null {
      return (
        db
          .update(validators)
          .set({ lastSeenAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`, version, codeDigest })
          .where(eq(validators.id, id))
          .returning()
          .get() ?? null
      );
    },
    /** Revokes a validator; returns false when there is no such validator. */
    revoke(id: string): boolean {
      const res = db
        .update(validators)
        .set({ revokedAt: sql`coalesce(${validators.revokedAt}, strftime('%Y-%m-%dT%H:%M:%fZ','now'))` })
        .where(eq(validators.id, id))
        .run();
      return res.changes > 0;
    },
    /** The active validator holding this bearer key, compared in constant time; null otherwise. */
    authenticate(apiKey: string): ValidatorRow | null {
      const m = KEY.exec(apiKey);
      if (!m) return null;
      const row = get(m[1]!);
      if (!row || row.revokedAt !== null || row.keyHash === null) return null;
      const ok = timingSafeEqual(sha256(m[2]!), Buffer.from(row.keyHash, 'hex'));
      return ok ? row : null;
    },
    /** Run counts per (task, miner; null for the baseline, validator) in the given stages. */
    pairRuns(competitionId: string, stages: readonly string[]): ValidatorPairRuns[] {
      return (pairRunsStmt.all({ id: competitionId, stages: JSON.stringify(stages) }) as PairRunsRow[]).map(toPairRuns);
    },
    /** Every validator's recorded standing in a competition (validators never excluded have none). */
    standings(competitionId: string): ValidatorStanding[] {
      return db
        .select()
        .from(competitionValidators)
        .where(eq(competitionValidators.competitionId, competitionId))
        .all();
    },
    /** Records a validator's exclusion in a competition; returns the standing before (null if none). */
    setExcluded(
      competitionId: string,
      validatorId: string,
      excluded: boolean,
      reason: string | null,
    ): ValidatorStanding | null {
      const where = and(
        eq(competitionValidators.competitionId, competitionId),
        eq(competitionValidators.validatorId, validatorId),
      );
      const before = db.select().from(competitionValidators).where(where).get() ?? null;
      db.insert(competitionValidators)
        .values({ competitionId, validatorId, excluded, reason })
        .onConflictDoUpdate({
          target: [competitionValidators.competitionId, competitionValidators.validatorId],
          set: { excluded, reason, updatedAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))` },
        })
        .run();
      return before;
    },
  };
}
