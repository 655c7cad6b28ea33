// Judge configurations set per competition (SPEC 12), versioned documents
// (src/db/versionedDocuments.ts). Setting one rebuilds the competition's aggregates: only QnA runs
// graded under the configuration in force count (src/db/aggregates.ts), so a change makes the
// others stale and a return to their digest counts them again.
import type { Db } from './client.js';
import { countedSql, rebuildAggregates } from './aggregates.js';
import { writeListeners, type WriteEvent } from './events.js';
import type { TokenWeights } from '../scoring/types.js';
import type { CriterionTally, ReportCriterion } from '../scoring/stabilityReport.js';
import type { VersionedDocument } from './rows.js';
import { versionedDocuments } from './versionedDocuments.js';

export type JudgeRow = VersionedDocument;

/** Runs per step of `stabilityTallies`: a step holds the event loop a few milliseconds. */
const PAGE_RUNS = 1024;

export function judgesRepo(db: Db) {
  const c = db.$client;
  const docs = versionedDocuments(db, 'judges');

  // The stability report's input (SPEC 12): the criteria of the tasks in some stages, and the
  // counted runs' verdicts summed per (task, criterion, miner or baseline). The verdicts are a scan
  // of the competition's runs in run id order, PAGE_RUNS runs a step: the last run id of a page is
  // found in the (competition, run id) index alone, then the page's graded runs are read.
  const stagesSql = 'SELECT value FROM json_each(@stages)';
  const reportCriteria = c
    .prepare(
      `SELECT c.task_id, c.id, c.type, c.change FROM task_criteria c
      JOIN tasks t ON t.competition_id = c.competition_id AND t.id = c.task_id
      WHERE c.competition_id = @id AND t.stage IN (${stagesSql})`,
    )
    .raw();
  const pageEnd = c
    .prepare(
      `SELECT run_id FROM runs WHERE competition_id = @id AND run_id > @after
      ORDER BY run_id LIMIT 1 OFFSET ${PAGE_RUNS - 1}`,
    )
    .pluck();
  // Summed here: json_each with json_extract in SQL takes five times as long.
  const gradings = (range: string) =>
    c
      .prepare(
        `SELECT r.task_id, CASE WHEN r.kind = 'baseline' THEN NULL ELSE r.miner_hotkey END, r.grading
        FROM runs r JOIN tasks t ON t.competition_id = r.competition_id AND t.id = r.task_id
        WHERE r.competition_id = @id AND ${range} AND r.grading IS NOT NULL AND t.stage IN (${stagesSql})
          AND ${countedSql}`,
      )
      .raw();
  const pageGradings = gradings('r.run_id > @after AND r.run_id <= @until');
  const lastGradings = gradings('r.run_id > @after');

  return {
    latest: docs.latest,
    get: docs.byDigest,
    /** The criteria of the tasks in `stages` (SPEC 12). */
    stabilityCriteria(competitionId: string, stages: readonly string[]): ReportCriterion[] {
      const rows = reportCriteria.all({ id: competitionId, stages: JSON.stringify(stages) });
      return (rows as [string, string, ReportCriterion['type'], string | null][]).map(([taskId, id, type, change]) => ({
        taskId,
        id,
        type,
        change,
      }));
    },
    /**
     * The counted runs' verdicts on the criteria of the tasks in `stages` (SPEC 12), a page of
     * runs a step so the caller can let requests go on between steps (a whole read at the
     * reference competition holds the event loop for a second). Every step but the last yields
     * nothing: the sums are yielded whole at the end. Runs written between steps may or may not
     * count; a rebuild of the competition's aggregates (a new judge configuration, a validator
     * excluded) starts the scan over, so the verdicts never mix two sets of counted runs.
     */
    *stabilityTallies(competitionId: string, stages: readonly string[]): Generator<CriterionTally[], void, unknown> {
      let rebuilt = false;
      const listener = (e: WriteEvent) => {
        if (e.competitionId === competitionId && e.kind === 'rebuild') rebuilt = true;
      };
      writeListeners(db).add(listener);
      try {
        const params = { id: competitionId, stages: JSON.stringify(stages), after: '', until: '' };
        let sums = new Map<string, CriterionTally>();
        for (;;) {
          const until = pageEnd.get(params) as string | undefined;
          const rows = (until === undefined ? lastGradings : pageGradings).iterate({ ...params, until });
          for (const [taskId, hotkey, grading] of rows as IterableIterator<[string, string | null, string]>) {
            for (const g of JSON.parse(grading) as { criterionId: string; met: boolean; split: boolean }[]) {
              const key = `${taskId}\u0000${g.criterionId}\u0000${hotkey ?? ''}`;
              let t = sums.get(key);
              if (!t)
                sums.set(key, (t = { taskId, criterionId: g.criterionId, hotkey, verdicts: 0, met: 0, split: 0 }));
              t.verdicts++;
              if (g.met) t.met++;
              if (g.split) t.split++;
            }
          }
          if (until === undefined) break;
          params.after = until;
          yield [];
          if (rebuilt) {
            rebuilt = false;
            sums = new Map();
            params.after = '';
          }
        }
        yield [...sums.values()];
      } finally {
        writeListeners(db).delete(listener);
      }
    },
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): JudgeRow =>
      docs.record(competitionId, document, digest, () => rebuildAggregates(db, competitionId, w)),
  };
}
