// src/db/validators.ts on PostgreSQL: bearer-key validators (only SHA-256 of the secret stored),
// signing validators (found by their sr25519 public key), and each validator's standing in a
// competition.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ValidatorPairRuns } from '../../scoring/agreement.js';
import { toPairRuns, type PairRunsRow, type ValidatorRow, type ValidatorStanding } from '../validators.js';
import { judgedSql, judgeInForceSql } from './aggregates.js';
import { NOW_TEXT, type PgContext } from './context.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const KEY = /^swv_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

// Keys in the order of SQLite's drizzle rows (src/db/schema.ts).
const COLUMNS =
  'id, name, key_hash AS "keyHash", hotkey, public_key AS "publicKey", created_at AS "createdAt", revoked_at AS "revokedAt", ' +
  'last_seen_at AS "lastSeenAt", version, code_digest AS "codeDigest"';
const STANDING = `competition_id AS "competitionId", validator_id AS "validatorId", excluded, reason, updated_at AS "updatedAt"`;

export function pgValidatorsRepo(ctx: PgContext) {
  async function get(id: string): Promise<ValidatorRow | null> {
    const [row] = await ctx.query<ValidatorRow>(`SELECT ${COLUMNS} FROM validators WHERE id = $1`, [id], {
      name: 'pg_validators_get',
    });
    return row ?? null;
  }

  return {
    get,
    /** Creates a bearer-key validator, or a signing one when `signer` is given (then no key). */
    async create(
      name: string,
      signer?: { hotkey: string; publicKey: string },
    ): Promise<{ validator: ValidatorRow; apiKey: string | null }> {
      const id = randomUUID().replaceAll('-', '');
      const insert = `INSERT INTO validators (id, name, key_hash, hotkey, public_key) VALUES ($1, $2, $3, $4, $5)
        RETURNING ${COLUMNS}`;
      if (signer) {
        const [validator] = await ctx.query<ValidatorRow>(insert, [id, name, null, signer.hotkey, signer.publicKey]);
        return { validator: validator!, apiKey: null };
      }
      const secret = randomBytes(32).toString('base64url');
      const [validator] = await ctx.query<ValidatorRow>(insert, [id, name, sha256(secret).toString('hex'), null, null]);
      return { validator: validator!, apiKey: `swv_${id}_${secret}` };
    },
    list(): Promise<ValidatorRow[]> {
      return ctx.query<ValidatorRow>(
        `SELECT ${COLUMNS} FROM validators ORDER BY created_at COLLATE "C", id COLLATE "C"`,
      );
    },
    /** The validator holding this sr25519 public key (hex), revoked or not. */
    async byPublicKey(publicKey: string): Promise<ValidatorRow | null> {
      const [row] = await ctx.query<ValidatorRow>(`SELECT ${COLUMNS} FROM validators WHERE public_key = $1`, [
        publicKey,
      ]);
      return row ?? null;
    },
    /** Records a heartbeat: one row written, nothing else. The row as written; null when there is no such validator. */
    async heartbeat(id: string, version: string, codeDigest: string | null): Promise<ValidatorRow | null> {
      const [row] = await ctx.query<ValidatorRow>(
        `UPDATE validators SET last_seen_at = ${NOW_TEXT}, version = $2, code_digest = $3 WHERE id = $1
        RETURNING ${COLUMNS}`,
        [id, version, codeDigest],
        { name: 'pg_validators_heartbeat' },
      );
      return row ?? null;
    },
    /** Revokes a validator; returns false when there is no such validator. */
    async revoke(id: string): Promise<boolean> {
      const n = await ctx.execute(
        `UPDATE validators SET revoked_at = coalesce(revoked_at, ${NOW_TEXT}) WHERE id = $1`,
        [id],
      );
      return n > 0;
    },
    /** The active validator holding this bearer key, compared in constant time; null otherwise. */
    async authenticate(apiKey: string): Promise<ValidatorRow | null> {
      const m = KEY.exec(apiKey);
      if (!m) return null;
      const row = await get(m[1]!);
      if (!row || row.revokedAt !== null || row.keyHash === null) return null;
      const ok = timingSafeEqual(sha256(m[2]!), Buffer.from(row.keyHash, 'hex'));
      return ok ? row : null;
    },
    /** Run counts per (task, miner; null for the baseline, validator) in the given stages. */
    async pairRuns(competitionId: string, stages: readonly string[]): Promise<ValidatorPairRuns[]> {
      const rows = await ctx.query<PairRunsRow>(
        `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END,
          r.validator_id, count(*), count(*) FILTER (WHERE r.resolved)
        FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
        WHERE r.competition_id = $1 AND r.validator_id IS NOT NULL AND t.stage = ANY($2::text[])
          AND ${judgedSql(judgeInForceSql)}
        GROUP BY r.task_id, r.kind, r.miner_hotkey, r.validator_id
        ORDER BY r.task_id COLLATE "C", r.kind COLLATE "C", r.miner_hotkey COLLATE "C" NULLS FIRST,
          r.validator_id COLLATE "C"`,
        [competitionId, stages],
        { array: true },
      );
      return rows.map(toPairRuns);
    },
    /** Every validator's recorded standing in a competition, by validator id (SQLite's key order). */
    standings(competitionId: string): Promise<ValidatorStanding[]> {
      return ctx.query<ValidatorStanding>(
        `SELECT ${STANDING} FROM competition_validators WHERE competition_id = $1 ORDER BY validator_id COLLATE "C"`,
        [competitionId],
      );
    },
    /** Records a validator's exclusion in a competition; returns the standing before (null if none). */
    async setExcluded(
      competitionId: string,
      validatorId: string,
      excluded: boolean,
      reason: string | null,
    ): Promise<ValidatorStanding | null> {
      // One statement: `before` reads the row as it stood before the upsert.
      const [row] = await ctx.query<ValidatorStanding>(
        `WITH before AS (
            SELECT ${STANDING} FROM competition_validators WHERE competition_id = $1 AND validator_id = $2),
          up AS (INSERT INTO competition_validators (competition_id, validator_id, excluded, reason)
            VALUES ($1, $2, $3, $4)
            ON CONFLICT (competition_id, validator_id) DO UPDATE SET excluded = $3, reason = $4, updated_at = ${NOW_TEXT})
        SELECT * FROM before`,
        [competitionId, validatorId, excluded, reason],
      );
      return row ?? null;
    },
  };
}
