// src/db/judges.ts on PostgreSQL.
import type { TokenWeights } from '../../scoring/types.js';
import type { JudgeRow } from '../judges.js';
import type { PgContext } from './context.js';
import { rebuildAggregates } from './aggregates.js';
import { pgVersionedDocuments } from './versionedDocuments.js';

export function pgJudgesRepo(ctx: PgContext) {
  const docs = pgVersionedDocuments(ctx, 'judges');
  return {
    latest: docs.latest,
    get: docs.byDigest,
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): Promise<JudgeRow> =>
      docs.record(competitionId, document, digest, (c) => rebuildAggregates(c, competitionId, w)),
  };
}
