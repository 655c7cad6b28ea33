// src/db/judges.ts on PostgreSQL.
import type { JudgeRow } from '../judges.js';
import type { TokenWeights } from '../../scoring/types.js';
import type { PgContext } from './context.js';
import { countedSql, rebuildAggregates } from './aggregates.js';
import type { CriterionTally, ReportCriterion } from '../../scoring/stabilityReport.js';

const COLUMNS = `competition_id AS "competitionId", version, recorded_at AS "recordedAt", document, digest`;
const LATEST = `SELECT ${COLUMNS} FROM judges WHERE competition_id = $1 ORDER BY version DESC LIMIT 1`;
const REPORT_CRITERIA = `SELECT c.task_id, c.id, c.type, c.change FROM task_criteria c
  JOIN tasks t ON t.competition_id = c.competition_id AND t.id = c.task_id
  WHERE c.competition_id = $1 AND t.stage = ANY($2::text[])`;
const REPORT_TALLIES = `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END,
    g->>'criterionId', count(*), count(*) FILTER (WHERE g->'met' = 'true'::jsonb),
    count(*) FILTER (WHERE g->'split' = 'true'::jsonb)
  FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
    CROSS JOIN jsonb_array_elements(r.grading::jsonb) g
  WHERE r.competition_id = $1 AND r.grading IS NOT NULL AND t.stage = ANY($2::text[]) AND ${countedSql}
  GROUP BY 1, 2, 3`;
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
    /** src/db/judges.ts stabilityCriteria. */
    async stabilityCriteria(competitionId: string, stages: readonly string[]): Promise<ReportCriterion[]> {
      const rows = await ctx.query<[string, string, ReportCriterion['type'], string | null]>(
        REPORT_CRITERIA,
        [competitionId, stages],
        { array: true },
      );
      return rows.map(([taskId, id, type, change]) => ({ taskId, id, type, change }));
    },
    /** src/db/judges.ts stabilityTallies: summed by the server in one statement, yielded in one step. */
    async *stabilityTallies(competitionId: string, stages: readonly string[]): AsyncGenerator<CriterionTally[]> {
      const rows = await ctx.query<[string, string | null, string, number, number, number]>(
        REPORT_TALLIES,
        [competitionId, stages],
        { array: true },
      );
      yield rows.map(([taskId, hotkey, criterionId, verdicts, met, split]) => ({
        taskId,
        criterionId,
        hotkey,
        verdicts,
        met,
        split,
      }));
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
