// Metagraphs recorded per competition (SPEC 11), versioned documents (src/db/versionedDocuments.ts).
import type { Db } from './client.js';
import { emitWrite } from './events.js';
import type { VersionedDocument } from './rows.js';
import { versionedDocuments } from './versionedDocuments.js';

export type MetagraphRow = VersionedDocument;

export function metagraphsRepo(db: Db) {
  const docs = versionedDocuments(db, 'metagraphs');
  return {
    latest: docs.latest,
    record: (competitionId: string, document: string, digest: string): MetagraphRow =>
      docs.record(competitionId, document, digest, () => emitWrite(db, { competitionId, kind: 'metagraph' })),
  };
}
