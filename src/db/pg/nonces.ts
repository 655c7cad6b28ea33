// src/db/nonces.ts on PostgreSQL: one statement each, atomic on its own.
import type { PgContext } from './context.js';

export function pgNoncesRepo(ctx: PgContext) {
  return {
    /**
     * Records the pair; false when it was already there (a replay). Committed with the server's
     * synchronous_commit like every other write (SQLite skips the fsync for this one; see
     * src/db/nonces.ts): turning it off here would cost a transaction of its own per nonce.
     */
    async remember(publicKey: string, uuid: string, expiresAt: number): Promise<boolean> {
      const n = await ctx.execute(
        'INSERT INTO signature_nonces (public_key, uuid, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [publicKey, uuid, expiresAt],
        { name: 'pg_nonces_remember' },
      );
      return n === 1;
    },
    /** Deletes entries that expired before `now` (Unix ms); returns how many. */
    prune(now: number): Promise<number> {
      return ctx.execute('DELETE FROM signature_nonces WHERE expires_at < $1', [now]);
    },
  };
}
