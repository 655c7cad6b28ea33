// src/db/judges.ts on PostgreSQL.
import type { TokenWeights } from '../../scoring/types.js';
import type pg from 'pg';
import type { JudgeRow, StabilityStep } from '../judges.js';
import { inSnapshot, type PgContext } from './context.js';
import { countedSql, rebuildAggregates } from './aggregates.js';
import { pgVersionedDocuments } from './versionedDocuments.js';
import type { ReportCriterion } from '../../scoring/stabilityReport.js';

const REPORT_CRITERIA = `SELECT c.task_id, c.id, c.type, c.change FROM task_criteria c
  JOIN tasks t ON t.competition_id = c.competition_id AND t.id = c.task_id
  WHERE c.competition_id = $1 AND t.stage = ANY($2::text[])`;
const REPORT_TALLIES = `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END,
    g->>'criterionId', count(*), count(*) FILTER (WHERE g->'met' = 'true'::jsonb),
    count(*) FILTER (WHERE g->'split' = 'true'::jsonb)
  FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
    CROSS JOIN jsonb_array_elements(r.grading::jsonb) g
  WHERE r.competition_id = $1 AND r.grading IS NOT NULL AND t.stage = ANY($2::text[]) AND ${countedSql}
    AND (r.kind = 'baseline' OR r.miner_hotkey NOT IN (SELECT hotkey FROM miners WHERE competition_id = $1 AND excluded))
  GROUP BY 1, 2, 3`;

export function pgJudgesRepo(ctx: PgContext, pool: pg.Pool) {
  const docs = pgVersionedDocuments(ctx, 'judges');
  return {
    latest: docs.latest,
    get: docs.byDigest,
    /**
     * src/db/judges.ts stabilityInput: the criteria and the verdicts summed by the server, two
     * statements in one snapshot (inside a transaction, its own), yielded in two steps.
     */
    async *stabilityInput(competitionId: string, stages: readonly string[]): AsyncGenerator<StabilityStep> {
      const read = async (query: PgContext['query']) => ({
        criteria: await query<[string, string, ReportCriterion['type'], string | null]>(
          REPORT_CRITERIA,
          [competitionId, stages],
          { array: true },
        ),
        tallies: await query<[string, string | null, string, number, number, number]>(
          REPORT_TALLIES,
          [competitionId, stages],
          { array: true },
        ),
      });
      const { criteria, tallies } = ctx.inTransaction
        ? await read((text, values, options) => ctx.query(text, values, options))
        : await inSnapshot(pool, read);
      yield { criteria: criteria.map(([taskId, id, type, change]) => ({ taskId, id, type, change })) };
      yield {
        tallies: tallies.map(([taskId, hotkey, criterionId, verdicts, met, split]) => ({
          taskId,
          criterionId,
          hotkey,
          verdicts,
          met,
          split,
        })),
      };
    },
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): Promise<JudgeRow> =>
      docs.record(competitionId, document, digest, (c) => rebuildAggregates(c, competitionId, w)),
  };
}
