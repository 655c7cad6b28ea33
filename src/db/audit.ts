// The audit log: append-only. This module has no update and no delete.
import type { Db } from './client.js';

export interface AuditEntry {
  seq: number;
  at: string;
  actor: { kind: 'admin' | 'validator'; id: string | null };
  action: string;
  competitionId: string | null;
  target: string;
  summary: Record<string, unknown>;
}

export type NewAuditEntry = Omit<AuditEntry, 'seq' | 'at'>;

/** An `audit_log` row, on either engine. */
export interface AuditRow {
  seq: number;
  at: string;
  actor_kind: 'admin' | 'validator';
  actor_id: string | null;
  action: string;
  competition_id: string | null;
  target: string;
  summary: string;
}

export const auditEntry = (r: AuditRow): AuditEntry => ({
  seq: r.seq,
  at: r.at,
  actor: { kind: r.actor_kind, id: r.actor_id },
  action: r.action,
  competitionId: r.competition_id,
  target: r.target,
  summary: JSON.parse(r.summary) as Record<string, unknown>,
});

export function auditRepo(db: Db) {
  const c = db.$client;
  const insert = c.prepare(`INSERT INTO audit_log (actor_kind, actor_id, action, competition_id, target, summary)
    VALUES (?, ?, ?, ?, ?, ?)`);
  const list =
    c.prepare(`SELECT * FROM audit_log WHERE seq > @after AND (@competitionId IS NULL OR competition_id = @competitionId)
    ORDER BY seq LIMIT @limit`);
  return {
    append(e: NewAuditEntry): void {
      insert.run(e.actor.kind, e.actor.id, e.action, e.competitionId, e.target, JSON.stringify(e.summary));
    },
    list(filter: { competitionId?: string; after?: number; limit: number }): AuditEntry[] {
      const rows = list.all({
        after: filter.after ?? 0,
        competitionId: filter.competitionId ?? null,
        limit: filter.limit,
      }) as AuditRow[];
      return rows.map(auditEntry);
    },
  };
}
