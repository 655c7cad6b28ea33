// A document kept per competition in versions (judge configurations, SPEC 12; metagraphs, SPEC 11):
// every version stays, the highest is in force. A row holds the document as recorded (canonical
// JSON, RFC 8785) and its digest; the shape is the service's, which validates it before it is stored.
import type { Db } from './client.js';
import type { VersionedDocument } from './rows.js';

/** The tables that keep versioned documents (the same columns in each). */
export type VersionedTable = 'judges' | 'metagraphs';

export function versionedDocuments(db: Db, table: VersionedTable) {
  const c = db.$client;
  const columns = 'competition_id AS competitionId, version, recorded_at AS recordedAt, document, digest';
  const latest = c.prepare(`SELECT ${columns} FROM ${table} WHERE competition_id = ? ORDER BY version DESC LIMIT 1`);
  const byDigest = c.prepare(
    `SELECT ${columns} FROM ${table} WHERE competition_id = ? AND digest = ? ORDER BY version DESC LIMIT 1`,
  );
  const insert = c.prepare(
    `INSERT INTO ${table} (competition_id, version, document, digest)
    VALUES (@competitionId, coalesce((SELECT max(version) FROM ${table} WHERE competition_id = @competitionId), 0) + 1,
      @document, @digest)`,
  );

  function latestOf(competitionId: string): VersionedDocument | null {
    return (latest.get(competitionId) as VersionedDocument | undefined) ?? null;
  }

  return {
    /** The version in force: the one recorded last; null when none is. */
    latest: latestOf,
    /** The latest version with this digest, if the competition ever held it. */
    byDigest: (competitionId: string, digest: string) =>
      (byDigest.get(competitionId, digest) as VersionedDocument | undefined) ?? null,
    /** Records a new version, in force from now, and runs `then` in the same transaction. */
    record(competitionId: string, document: string, digest: string, then: () => void): VersionedDocument {
      return db.transaction(() => {
        insert.run({ competitionId, document, digest });
        then();
        return latestOf(competitionId)!;
      });
    },
  };
}
