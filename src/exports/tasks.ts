// The tasks export in NDJSON and CSV, in task id order. The QnA content is flattened into columns
// (null on SWE-bench tasks); `rubric` is an array in NDJSON and its JSON text in CSV. The answer
// key stays hidden unless revealed, as in task reads (src/views/task.ts): without `reveal` there
// is no `referenceAnswer` column and each criterion shows only its position, type and change.
import type { CriterionExportRow, TaskExportRow } from '../db/exports.js';
import type { QnaMeta } from '../db/tasks.js';
import { csvRecord, type CsvValue } from './csv.js';

/** A page of tasks with the criteria of those tasks (by task, in position order). */
export interface TaskPage {
  tasks: TaskExportRow[];
  criteria: CriterionExportRow[];
}

const QNA_FIELDS = [
  'prompt',
  'referenceAnswer',
  'repositoryUrl',
  'repositoryBaseCommit',
  'language',
  'category',
  'dockerImage',
] as const;

export function taskColumns(reveal: boolean): string[] {
  const qna = reveal ? QNA_FIELDS : QNA_FIELDS.filter((f) => f !== 'referenceAnswer');
  return ['id', 'type', 'stage', 'complexity', 'plannedRuns', 'runCount', 'baselineRuns', ...qna, 'rubric'];
}

function criterionView(c: CriterionExportRow, reveal: boolean) {
  const [, position, id, title, type, importance, originalTitle, change] = c;
  return reveal ? { position, id, title, type, importance, originalTitle, change } : { position, type, change };
}

/** Each task of the page as an object whose keys are `taskColumns(reveal)`, in that order. */
export async function* taskRecords(
  pages: AsyncIterable<TaskPage>,
  reveal: boolean,
): AsyncGenerator<Record<string, unknown>> {
  const fields = reveal ? QNA_FIELDS : QNA_FIELDS.filter((f) => f !== 'referenceAnswer');
  for await (const { tasks, criteria } of pages) {
    const rubrics = new Map<string, ReturnType<typeof criterionView>[]>();
    for (const c of criteria) {
      const list = rubrics.get(c[0]) ?? [];
      if (list.length === 0) rubrics.set(c[0], list);
      list.push(criterionView(c, reveal));
    }
    for (const [id, type, stage, complexity, plannedRuns, runCount, baselineRuns, qnaJson] of tasks) {
      const qna = qnaJson === null ? null : (JSON.parse(qnaJson) as QnaMeta);
      const record: Record<string, unknown> = { id, type, stage, complexity, plannedRuns, runCount, baselineRuns };
      for (const f of fields) record[f] = qna ? qna[f] : null;
      record.rubric = type === 'swe_atlas_qna' ? (rubrics.get(id) ?? []) : null;
      yield record;
    }
  }
}

export async function* taskLines(
  pages: AsyncIterable<TaskPage>,
  format: 'ndjson' | 'csv',
  reveal: boolean,
): AsyncGenerator<string> {
  const columns = taskColumns(reveal);
  if (format === 'csv') yield csvRecord(columns);
  for await (const record of taskRecords(pages, reveal)) {
    if (format === 'ndjson') {
      yield `${JSON.stringify(record)}\n`;
      continue;
    }
    const rubric = record.rubric === null ? null : JSON.stringify(record.rubric);
    yield csvRecord(columns.map((c) => (c === 'rubric' ? rubric : (record[c] as CsvValue))));
  }
}
