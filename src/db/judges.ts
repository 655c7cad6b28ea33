// Judge configurations set per competition (SPEC 12), versioned documents
// (src/db/versionedDocuments.ts). Setting one rebuilds the competition's aggregates: only QnA runs
// graded under the configuration in force count (src/db/aggregates.ts), so a change makes the
// others stale and a return to their digest counts them again.
import type { Db } from './client.js';
import { countedSql, rebuildAggregates } from './aggregates.js';
import type { TokenWeights } from '../scoring/types.js';
import type { CriterionTally, ReportCriterion } from '../scoring/stabilityReport.js';
import type { VersionedDocument } from './rows.js';
import { versionedDocuments } from './versionedDocuments.js';

export type JudgeRow = VersionedDocument;

export function judgesRepo(db: Db) {
  const c = db.$client;
  const docs = versionedDocuments(db, 'judges');

  // The stability report's input (SPEC 12): the criteria of the tasks in some stages, and the
  // counted runs' verdicts summed per (task, criterion, miner or baseline). A scan of the
  // competition's graded runs, read for that report only.
  const stagesSql = 'SELECT value FROM json_each(@stages)';
  const reportCriteria = c
    .prepare(
      `SELECT c.task_id, c.id, c.type, c.change FROM task_criteria c
      JOIN tasks t ON t.competition_id = c.competition_id AND t.id = c.task_id
      WHERE c.competition_id = @id AND t.stage IN (${stagesSql})`,
    )
    .raw();
  // Summed here: json_each with json_extract in SQL takes five times as long.
  const reportGradings = c
    .prepare(
      `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END, r.grading
      FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
      WHERE r.competition_id = @id AND r.grading IS NOT NULL AND t.stage IN (${stagesSql}) AND ${countedSql}`,
    )
    .raw();

  return {
    latest: docs.latest,
    get: docs.byDigest,
    /** The criteria of the tasks in `stages`, and the counted runs' verdicts on them (SPEC 12). */
    stabilityInput(
      competitionId: string,
      stages: readonly string[],
    ): { criteria: ReportCriterion[]; tallies: CriterionTally[] } {
      const params = { id: competitionId, stages: JSON.stringify(stages) };
      const criteria = (reportCriteria.all(params) as [string, string, ReportCriterion['type'], string | null][]).map(
        ([taskId, id, type, change]) => ({ taskId, id, type, change }),
      );
      const sums = new Map<string, CriterionTally>();
      const rows = reportGradings.iterate(params) as IterableIterator<[string, string | null, string]>;
      for (const [taskId, hotkey, grading] of rows) {
        for (const g of JSON.parse(grading) as { criterionId: string; met: boolean; split: boolean }[]) {
          const key = `${taskId}\u0000${g.criterionId}\u0000${hotkey ?? ''}`;
          let t = sums.get(key);
          if (!t) sums.set(key, (t = { taskId, criterionId: g.criterionId, hotkey, verdicts: 0, met: 0, split: 0 }));
          t.verdicts++;
          if (g.met) t.met++;
          if (g.split) t.split++;
        }
      }
      return { criteria, tallies: [...sums.values()] };
    },
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): JudgeRow =>
      docs.record(competitionId, document, digest, () => rebuildAggregates(db, competitionId, w)),
  };
}
