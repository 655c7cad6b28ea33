// src/db/metagraphs.ts on PostgreSQL.
import type { MetagraphRow } from '../metagraphs.js';
import type { PgContext } from './context.js';
import { pgVersionedDocuments } from './versionedDocuments.js';

export function pgMetagraphsRepo(ctx: PgContext) {
  const docs = pgVersionedDocuments(ctx, 'metagraphs');
  return {
    latest: docs.latest,
    record: (competitionId: string, document: string, digest: string): Promise<MetagraphRow> =>
      docs.record(competitionId, document, digest, async (c) => c.emit({ competitionId, kind: 'metagraph' })),
  };
}
