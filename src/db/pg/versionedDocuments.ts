// src/db/versionedDocuments.ts on PostgreSQL. The competition's write transaction takes its
// version row first, so two versions recorded at once never take the same number.
import type { VersionedDocument } from '../rows.js';
import type { VersionedTable } from '../versionedDocuments.js';
import type { PgContext } from './context.js';

const COLUMNS = `competition_id AS "competitionId", version, recorded_at AS "recordedAt", document, digest`;

export function pgVersionedDocuments(ctx: PgContext, table: VersionedTable) {
  const LATEST = `SELECT ${COLUMNS} FROM ${table} WHERE competition_id = $1 ORDER BY version DESC LIMIT 1`;
  const BY_DIGEST = `SELECT ${COLUMNS} FROM ${table} WHERE competition_id = $1 AND digest = $2
    ORDER BY version DESC LIMIT 1`;
  const INSERT = `INSERT INTO ${table} (competition_id, version, document, digest)
    VALUES ($1, coalesce((SELECT max(version) FROM ${table} WHERE competition_id = $1), 0) + 1, $2, $3)`;

  async function latest(c: PgContext, competitionId: string): Promise<VersionedDocument | null> {
    // Prepared (named): every batch of runs reads the judge in force inside its competition's turn.
    const [row] = await c.query<VersionedDocument>(LATEST, [competitionId], { name: `pg_${table}_latest` });
    return row ?? null;
  }
  return {
    latest: (competitionId: string) => latest(ctx, competitionId),
    byDigest: async (competitionId: string, digest: string): Promise<VersionedDocument | null> => {
      const [row] = await ctx.query<VersionedDocument>(BY_DIGEST, [competitionId, digest]);
      return row ?? null;
    },
    record: (
      competitionId: string,
      document: string,
      digest: string,
      then: (c: PgContext) => Promise<void>,
    ): Promise<VersionedDocument> =>
      ctx.write(competitionId, async (c) => {
        await c.execute(INSERT, [competitionId, document, digest]);
        await then(c);
        return (await latest(c, competitionId))!;
      }),
  };
}
