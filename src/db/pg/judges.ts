// src/db/judges.ts on PostgreSQL.
import type { JudgeRow } from '../judges.js';
import type { TokenWeights } from '../../scoring/types.js';
import type { PgContext } from './context.js';
import { rebuildAggregates } from './aggregates.js';

const COLUMNS = `competition_id AS "competitionId", version, recorded_at AS "recordedAt", document, digest`;
const LATEST = `SELECT ${COLUMNS} FROM judges WHERE competition_id = $1 ORDER BY version DESC LIMIT 1`;
const BY_DIGEST = `SELECT ${COLUMNS} FROM judges WHERE competition_id = $1 AND digest = $2 ORDER BY version DESC LIMIT 1`;

export function pgJudgesRepo(ctx: PgContext) {
  async function latest(c: PgContext, competitionId: string): Promise<JudgeRow | null> {
    const [row] = await c.query<JudgeRow>(LATEST, [competitionId]);
    return row ?? null;
  }
  return {
    latest: (competitionId: string) => latest(ctx, competitionId),
    async get(competitionId: string, digest: string): Promise<JudgeRow | null> {
      const [row] = await ctx.query<JudgeRow>(BY_DIGEST, [competitionId, digest]);
      return row ?? null;
    },
    /** The competition's write transaction takes its version row first, so versions never collide. */
    record(competitionId: string, document: string, digest: string, w: TokenWeights): Promise<JudgeRow> {
      return ctx.write(competitionId, async (c) => {
        await c.execute(
          `INSERT INTO judges (competition_id, version, document, digest)
          VALUES ($1, coalesce((SELECT max(version) FROM judges WHERE competition_id = $1), 0) + 1, $2, $3)`,
          [competitionId, document, digest],
        );
        await rebuildAggregates(c, competitionId, w);
        return (await latest(c, competitionId))!;
      });
    },
  };
}
