// Validator keys. A key is `swv_<id>_<secret>`; only SHA-256 of the secret is stored. The secret
// is 32 random bytes, so a fast hash is enough: there is nothing to brute-force.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { validators } from './schema.js';

export type ValidatorRow = typeof validators.$inferSelect;

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const KEY = /^swv_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export function validatorsRepo(db: Db) {
  return {
    create(name: string): { validator: ValidatorRow; apiKey: string } {
      const id = randomUUID().replaceAll('-', '');
      const secret = randomBytes(32).toString('base64url');
      db.insert(validators).values({ id, name, keyHash: sha256(secret).toString('hex') }).run();
      const validator = db.select().from(validators).where(eq(validators.id, id)).get()!;
      return { validator, apiKey: `swv_${id}_${secret}` };
    },
    list(): ValidatorRow[] {
      return db.select().from(validators).orderBy(asc(validators.createdAt), asc(validators.id)).all();
    },
    get(id: string): ValidatorRow | null {
      return db.select().from(validators).where(eq(validators.id, id)).get() ?? null;
    },
    /** Revokes a key; returns false when there is no such validator. */
    revoke(id: string): boolean {
      const res = db
        .update(validators)
        .set({ revokedAt: sql`coalesce(${validators.revokedAt}, strftime('%Y-%m-%dT%H:%M:%fZ','now'))` })
        .where(eq(validators.id, id))
        .run();
      return res.changes > 0;
    },
    /** The active validator holding this key, compared in constant time; null otherwise. */
    authenticate(apiKey: string): ValidatorRow | null {
      const m = KEY.exec(apiKey);
      if (!m) return null;
      const row = db.select().from(validators).where(eq(validators.id, m[1]!)).get();
      if (!row || row.revokedAt !== null) return null;
      const ok = timingSafeEqual(sha256(m[2]!), Buffer.from(row.keyHash, 'hex'));
      return ok ? row : null;
    },
  };
}
