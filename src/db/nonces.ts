// Epistula replay protection: each (public key, uuid) is accepted once. Entries are kept until the
// timestamp they came with can no longer pass the window, so a replay is refused across restarts,
// and pruned after that so the table stays small.
import type { Db } from './client.js';

export function noncesRepo(db: Db) {
  const c = db.$client;
  const insert = c.prepare('INSERT OR IGNORE INTO signature_nonces (public_key, uuid, expires_at) VALUES (?, ?, ?)');
  const prune = c.prepare('DELETE FROM signature_nonces WHERE expires_at < ?');
  return {
    /**
     * Records the pair; false when it was already there (a replay). The pair is committed without
     * an fsync of its own (synchronous NORMAL for this one transaction; an fsync would be about a tenth
     * of a signed batch's time): it survives a crash of the process at once, and a power cut from
     * the next durable commit on. A signed write's own commit comes after its nonce in the log, so
     * an acknowledged write's nonce is always durable; a power cut can forget only the nonces of
     * requests that stored nothing. Checkpoints stay fully synced (SQLite syncs them in NORMAL).
     */
    remember(publicKey: string, uuid: string, expiresAt: number): boolean {
      if (c.inTransaction) return insert.run(publicKey, uuid, expiresAt).changes === 1;
      const level = c.pragma('synchronous', { simple: true }) as number;
      c.pragma('synchronous = NORMAL');
      try {
        return insert.run(publicKey, uuid, expiresAt).changes === 1;
      } finally {
        c.pragma(`synchronous = ${level}`);
      }
    },
    /** Deletes entries that expired before `now` (Unix ms); returns how many. */
    prune(now: number): number {
      return prune.run(now).changes;
    },
  };
}
