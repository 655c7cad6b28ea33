// The audit log's writer and reader. Services record an entry inside the transaction of the write
// it describes, so the two are stored together or not at all.
import type { Store } from '../db/contract.js';
import type { AuditEntry } from '../db/audit.js';
import { badRequest } from '../errors.js';
import type { Principal } from './principal.js';

export const actorOf = (who: Principal): AuditEntry['actor'] =>
  who.kind === 'admin' ? { kind: 'admin', id: null } : { kind: 'validator', id: who.id };

/** Cursors are the last sequence number seen, as decimal text. */
export function parseCursor(cursor: string | undefined, name = 'cursor'): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,15}$/.test(cursor))
    throw badRequest(`${name} must be a cursor from a previous page`, [
      { path: `querystring/${name}`, message: 'not a cursor' },
    ]);
  return Number(cursor);
}

export function auditService(store: Store) {
  return {
    /** Appends an entry through `tx`, the transaction of the write it describes. */
    async record(
      tx: Store,
      who: Principal,
      action: string,
      competitionId: string | null,
      target: string,
      summary: Record<string, unknown>,
    ): Promise<void> {
      await tx.audit.append({ actor: actorOf(who), action, competitionId, target, summary });
    },
    async list(filter: { competitionId?: string; cursor?: string; limit: number }) {
      const entries = await store.audit.list({
        competitionId: filter.competitionId,
        after: parseCursor(filter.cursor),
        limit: filter.limit,
      });
      const last = entries.at(-1);
      return { entries, nextCursor: entries.length === filter.limit && last ? String(last.seq) : null };
    },
  };
}

export type AuditService = ReturnType<typeof auditService>;
