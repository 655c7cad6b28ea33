// Judge configurations set per competition (SPEC 12), every version kept; the highest is in
// force. Setting one rebuilds the competition's aggregates: only QnA runs graded under the
// configuration in force count (src/db/aggregates.ts), so a change makes the others stale and a
// return to their digest counts them again.
import type { Db } from './client.js';
import { rebuildAggregates } from './aggregates.js';
import type { TokenWeights } from '../scoring/types.js';

export interface JudgeRow {
  competitionId: string;
  version: number;
  recordedAt: string;
  /** Canonical JSON (RFC 8785) of the configuration. */
  document: string;
  digest: string;
}

export function judgesRepo(db: Db) {
  const c = db.$client;
  const columns = 'competition_id AS competitionId, version, recorded_at AS recordedAt, document, digest';
  const latest = c.prepare(`SELECT ${columns} FROM judges WHERE competition_id = ? ORDER BY version DESC LIMIT 1`);
  const byDigest = c.prepare(
    `SELECT ${columns} FROM judges WHERE competition_id = ? AND digest = ? ORDER BY version DESC LIMIT 1`,
  );
  const insert = c.prepare(
    `INSERT INTO judges (competition_id, version, document, digest)
    VALUES (@competitionId, coalesce((SELECT max(version) FROM judges WHERE competition_id = @competitionId), 0) + 1,
      @document, @digest)`,
  );

  function latestOf(competitionId: string): JudgeRow | null {
    return (latest.get(competitionId) as JudgeRow | undefined) ?? null;
  }

  return {
    /** The configuration in force: the one set last; null when none is. */
    latest: latestOf,
    /** The configuration with this digest, if the competition ever held it. */
    get: (competitionId: string, digest: string) =>
      (byDigest.get(competitionId, digest) as JudgeRow | undefined) ?? null,
    /** Sets a new version, in force from now, and recounts the runs under it. */
    record(competitionId: string, document: string, digest: string, w: TokenWeights): JudgeRow {
      return db.transaction(() => {
        insert.run({ competitionId, document, digest });
        rebuildAggregates(db, competitionId, w);
        return latestOf(competitionId)!;
      });
    },
  };
}
