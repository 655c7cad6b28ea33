// Judge configurations set per competition (SPEC 12), versioned documents
// (src/db/versionedDocuments.ts). Setting one rebuilds the competition's aggregates: only QnA runs
// graded under the configuration in force count (src/db/aggregates.ts), so a change makes the
// others stale and a return to their digest counts them again.
import type { Db } from './client.js';
import { rebuildAggregates } from './aggregates.js';
import type { TokenWeights } from '../scoring/types.js';
import type { VersionedDocument } from './rows.js';
import { versionedDocuments } from './versionedDocuments.js';

export type JudgeRow = VersionedDocument;

export function judgesRepo(db: Db) {
  const docs = versionedDocuments(db, 'judges');
  return {
    latest: docs.latest,
    get: docs.byDigest,
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): JudgeRow =>
      docs.record(competitionId, document, digest, () => rebuildAggregates(db, competitionId, w)),
  };
}
