// Metagraphs recorded per competition (SPEC 11), every version kept; the highest is in force.
// A row holds the document as recorded (canonical JSON) and its digest; the shape is the
// service's (src/services/metagraphs.ts), which validates it before it is stored.
import type { Db } from './client.js';
import { emitWrite } from './events.js';

export interface MetagraphRow {
  competitionId: string;
  version: number;
  recordedAt: string;
  /** Canonical JSON (RFC 8785) of the metagraph. */
  document: string;
  digest: string;
}

export function metagraphsRepo(db: Db) {
  const c = db.$client;
  const columns = 'competition_id AS competitionId, version, recorded_at AS recordedAt, document, digest';
  const latest = c.prepare(`SELECT ${columns} FROM metagraphs WHERE competition_id = ? ORDER BY version DESC LIMIT 1`);
  const insert = c.prepare(
    `INSERT INTO metagraphs (competition_id, version, document, digest)
    VALUES (@competitionId, coalesce((SELECT max(version) FROM metagraphs WHERE competition_id = @competitionId), 0) + 1,
      @document, @digest)`,
  );

  function latestOf(competitionId: string): MetagraphRow | null {
    return (latest.get(competitionId) as MetagraphRow | undefined) ?? null;
  }

  return {
    /** The metagraph in force: the one recorded last; null when none is. */
    latest: latestOf,
    /** Records a new version, in force from now; the ones before stay. */
    record(competitionId: string, document: string, digest: string): MetagraphRow {
      return db.transaction(() => {
        insert.run({ competitionId, document, digest });
        emitWrite(db, { competitionId, kind: 'metagraph' });
        return latestOf(competitionId)!;
      });
    },
  };
}
