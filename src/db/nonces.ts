// Epistula replay protection: each (public key, uuid) is accepted once. Entries are kept until the
// timestamp they came with can no longer pass the window, so a replay is refused across restarts,
// and pruned after that so the table stays small.
import type { Db } from './client.js';

export function noncesRepo(db: Db) {
  const c = db.$client;
  const insert = c.prepare('INSERT OR IGNORE INTO signature_nonces (public_key, uuid, expires_at) VALUES (?, ?, ?)');
  const prune = c.prepare('DELETE FROM signature_nonces WHERE expires_at < ?');
  return {
    /** Records the pair; false when it was already there (a replay). Durable once this returns. */
    remember(publicKey: string, uuid: string, expiresAt: number): boolean {
      return insert.run(publicKey, uuid, expiresAt).changes === 1;
    },
    /** Deletes entries that expired before `now` (Unix ms); returns how many. */
    prune(now: number): number {
      return prune.run(now).changes;
    },
  };
}
