// Judge configurations set per competition (SPEC 12), versioned documents
// (src/db/versionedDocuments.ts). Setting one rebuilds the competition's aggregates: only QnA runs
// graded under the configuration in force count (src/db/aggregates.ts), so a change makes the
// others stale and a return to their digest counts them again.
import type { Db } from './client.js';
import { judgedSql, judgeInForceSql, rebuildAggregates } from './aggregates.js';
import { runSeqSql } from './snapshots.js';
import type { TokenWeights } from '../scoring/types.js';
import type { CriterionTally, ReportCriterion } from '../scoring/stabilityReport.js';
import type { VersionedDocument } from './rows.js';
import { versionedDocuments } from './versionedDocuments.js';

export type JudgeRow = VersionedDocument;

/** A step of the stability report's input (SPEC 12): the criteria first, then the verdicts on them. */
export type StabilityStep = { criteria: ReportCriterion[] } | { tallies: CriterionTally[] };

/** Runs per step of `stabilityInput`: a step holds the event loop a few milliseconds. */
const PAGE_RUNS = 1024;

export function judgesRepo(db: Db) {
  const c = db.$client;
  const docs = versionedDocuments(db, 'judges');

  // The stability report's input (SPEC 12) as the competition stood at one moment, read as a
  // snapshot's input is (src/db/snapshots.ts): the head (the criteria of the tasks in the stages,
  // the run sequence, the excluded validators and miners, the judge in force) in one read
  // transaction; then the runs counted then (SPEC 6, 10, 12: not an excluded validator's or miner's,
  // not stale), a page of PAGE_RUNS runs a step in run id order: the live runs stored up
  // to that sequence and the runs deleted after it, both sides of a page in one read transaction,
  // kept by the head's exclusions, judge and tasks. A write between two steps changes no step, and
  // no read transaction stays open between them (writes share the connection).
  const reportCriteria = c
    .prepare(
      `SELECT c.task_id, c.id, c.type, c.change FROM task_criteria c
      JOIN tasks t ON t.competition_id = c.competition_id AND t.id = c.task_id
      WHERE c.competition_id = @id AND t.stage IN (SELECT value FROM json_each(@stages))`,
    )
    .raw();
  const pointNow = c
    .prepare(
      `SELECT (${runSeqSql}),
        (SELECT json_group_array(validator_id) FROM competition_validators WHERE competition_id = @id AND excluded = 1),
        (SELECT json_group_array(hotkey) FROM miners WHERE competition_id = @id AND excluded = 1),
        ${judgeInForceSql}`,
    )
    .raw();
  const head = c.transaction((id: string, stages: string) => ({
    criteria: reportCriteria.all({ id, stages }) as [string, string, ReportCriterion['type'], string | null][],
    point: pointNow.get({ id }) as [upTo: number, excluded: string, excludedMiners: string, judge: string | null],
  }));
  const pageEnd = c
    .prepare(
      `SELECT run_id FROM runs WHERE competition_id = @id AND run_id > @after
      ORDER BY run_id LIMIT 1 OFFSET ${PAGE_RUNS - 1}`,
    )
    .pluck();
  // Summed here: json_each with json_extract in SQL takes five times as long.
  const gradings = (table: 'runs' | 'deleted_runs', range: string) =>
    c
      .prepare(
        `SELECT task_id, CASE WHEN kind = 'baseline' THEN NULL ELSE miner_hotkey END, grading FROM ${table}
        WHERE competition_id = @id AND ${range} AND seq <= @upTo ${table === 'deleted_runs' ? 'AND deleted_seq > @upTo' : ''}
          AND grading IS NOT NULL AND task_id IN (SELECT value FROM json_each(@tasks))
          AND (validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))
          AND (kind = 'baseline' OR miner_hotkey NOT IN (SELECT value FROM json_each(@excludedMiners)))
          AND ${judgedSql('@judge')}`,
      )
      .raw();
  const sides = (range: string) => [gradings('runs', range), gradings('deleted_runs', range)];
  const pageGradings = sides('run_id > @after AND run_id <= @until');
  const lastGradings = sides('run_id > @after');
  type PageParams = {
    id: string;
    tasks: string;
    upTo: number;
    excluded: string;
    excludedMiners: string;
    judge: string | null;
    after: string;
  };
  /** Adds the verdicts of the next page of runs to `sums`; answers its last run id, undefined after the last page. */
  const readPage = c.transaction((params: PageParams, sums: Map<string, CriterionTally>): string | undefined => {
    const until = pageEnd.get(params) as string | undefined;
    for (const side of until === undefined ? lastGradings : pageGradings) {
      for (const [taskId, hotkey, grading] of side.iterate({ ...params, until }) as IterableIterator<
        [string, string | null, string]
      >) {
        for (const g of JSON.parse(grading) as { criterionId: string; met: boolean; split: boolean }[]) {
          const key = `${taskId}\u0000${g.criterionId}\u0000${hotkey ?? ''}`;
          let t = sums.get(key);
          if (!t) sums.set(key, (t = { taskId, criterionId: g.criterionId, hotkey, verdicts: 0, met: 0, split: 0 }));
          t.verdicts++;
          if (g.met) t.met++;
          if (g.split) t.split++;
        }
      }
    }
    return until;
  });

  return {
    latest: docs.latest,
    get: docs.byDigest,
    /**
     * The stability report's input (SPEC 12) as the competition stood when it was asked for: the
     * criteria of the tasks in `stages`, then the verdicts of the runs counted then, summed per
     * (task, criterion, miner or baseline). A page of runs a step, so the caller can let requests
     * go on between steps (a whole read at the reference competition holds the event loop for a
     * second); every step but the first and the last yields no verdicts, the sums come whole at the end.
     */
    *stabilityInput(competitionId: string, stages: readonly string[]): Generator<StabilityStep, void, unknown> {
      const read = head(competitionId, JSON.stringify(stages));
      const criteria = read.criteria.map(([taskId, id, type, change]) => ({ taskId, id, type, change }));
      yield { criteria };
      const [upTo, excluded, excludedMiners, judge] = read.point;
      const tasks = JSON.stringify([...new Set(criteria.map((x) => x.taskId))]);
      const params: PageParams = { id: competitionId, tasks, upTo, excluded, excludedMiners, judge, after: '' };
      const sums = new Map<string, CriterionTally>();
      for (;;) {
        const until = readPage(params, sums);
        if (until === undefined) break;
        params.after = until;
        yield { tallies: [] };
      }
      yield { tallies: [...sums.values()] };
    },
    record: (competitionId: string, document: string, digest: string, w: TokenWeights): JudgeRow =>
      docs.record(competitionId, document, digest, () => rebuildAggregates(db, competitionId, w)),
  };
}
