// src/db/audit.ts on PostgreSQL: append-only, no update and no delete.
import { auditEntry, type AuditEntry, type AuditRow, type NewAuditEntry } from '../audit.js';
import type { PgContext } from './context.js';

export function pgAuditRepo(ctx: PgContext) {
  return {
    async append(e: NewAuditEntry): Promise<void> {
      await ctx.execute(
        `INSERT INTO audit_log (actor_kind, actor_id, action, competition_id, target, summary)
        VALUES ($1, $2, $3, $4, $5, $6)`,
        [e.actor.kind, e.actor.id, e.action, e.competitionId, e.target, JSON.stringify(e.summary)],
      );
    },
    async list(filter: { competitionId?: string; after?: number; limit: number }): Promise<AuditEntry[]> {
      const rows = await ctx.query<AuditRow>(
        `SELECT * FROM audit_log WHERE seq > $1 AND ($2::text IS NULL OR competition_id = $2) ORDER BY seq LIMIT $3`,
        [filter.after ?? 0, filter.competitionId ?? null, filter.limit],
      );
      return rows.map(auditEntry);
    },
  };
}
