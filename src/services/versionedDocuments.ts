// What the services of versioned documents kept per competition share (judge configurations,
// src/services/judges.ts; metagraphs, src/services/metagraphs.ts; the repository is
// src/db/versionedDocuments.ts): the view of a stored version, and the 404 of a read that found none.
import type { Store, VersionedDocument } from '../db/contract.js';
import { notFound } from '../errors.js';

/** A stored version as the API shows it: where it stands in the history, then the document's fields. */
export function versionedView<T extends object>(row: VersionedDocument) {
  return {
    competitionId: row.competitionId,
    version: row.version,
    recordedAt: row.recordedAt,
    digest: row.digest,
    ...(JSON.parse(row.document) as T),
  };
}

/** The 404 of a read that found no version: no such competition, or else `none`. */
export async function noVersion(store: Store, competitionId: string, none: string): Promise<never> {
  if (!(await store.competitions.get(competitionId))) throw notFound(`competition ${competitionId} does not exist`);
  throw notFound(none);
}
