// src/db/metagraphs.ts on PostgreSQL.
import type { MetagraphRow } from '../metagraphs.js';
import type { PgContext } from './context.js';

const COLUMNS = `competition_id AS "competitionId", version, recorded_at AS "recordedAt", document, digest`;
const LATEST = `SELECT ${COLUMNS} FROM metagraphs WHERE competition_id = $1 ORDER BY version DESC LIMIT 1`;

export function pgMetagraphsRepo(ctx: PgContext) {
  async function latest(c: PgContext, competitionId: string): Promise<MetagraphRow | null> {
    const [row] = await c.query<MetagraphRow>(LATEST, [competitionId]);
    return row ?? null;
  }
  return {
    latest: (competitionId: string) => latest(ctx, competitionId),
    /** The competition's write transaction takes its version row first, so versions never collide. */
    record(competitionId: string, document: string, digest: string): Promise<MetagraphRow> {
      return ctx.write(competitionId, async (c) => {
        await c.execute(
          `INSERT INTO metagraphs (competition_id, version, document, digest)
          VALUES ($1, coalesce((SELECT max(version) FROM metagraphs WHERE competition_id = $1), 0) + 1, $2, $3)`,
          [competitionId, document, digest],
        );
        c.emit({ competitionId, kind: 'metagraph' });
        return (await latest(c, competitionId))!;
      });
    },
  };
}
