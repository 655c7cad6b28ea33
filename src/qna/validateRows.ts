// Validate parsed rows against the SWE-Atlas-QnA-AA schema and map them to QnaTask.
// Every row is checked and every problem reported, so one upload shows all that is wrong.
import { checkQnaRow, type QnaRow } from './rowCheck.js';
import type { QnaTask } from './types.js';

export interface QnaRowProblem {
  /** 1-based position of the row in the input. */
  row: number;
  field: string;
  message: string;
}

export type QnaValidation = { ok: true; tasks: QnaTask[] } | { ok: false; problems: QnaRowProblem[] };

/** An empty input is valid and yields no tasks; whether that is acceptable is the caller's call. */
export function validateQnaRows(rows: Record<string, unknown>[]): QnaValidation {
  const problems: QnaRowProblem[] = [];
  const tasks: QnaTask[] = [];
  const firstRowOfTask = new Map<string, number>();
  rows.forEach((input, index) => {
    const row = index + 1;
    const parsed = checkQnaRow(input);
    if (!parsed.ok) {
      for (const issue of parsed.issues) {
        problems.push({ row, field: fieldName(issue.path), message: issue.message });
      }
    }
    // Checked even when another field failed, so a duplicate is never hidden by a typo.
    const taskId = input['task_id'];
    if (typeof taskId === 'string') {
      const first = firstRowOfTask.get(taskId);
      if (first === undefined) firstRowOfTask.set(taskId, row);
      else problems.push({ row, field: 'task_id', message: `repeats the task_id of row ${first}` });
    }
    if (parsed.ok) tasks.push(toTask(parsed.row));
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tasks };
}

function toTask(row: QnaRow): QnaTask {
  return {
    id: row.task_id,
    prompt: row.prompt,
    referenceAnswer: row.reference_answer,
    repositoryUrl: row.repository_url,
    repositoryBaseCommit: row.repository_base_commit,
    language: row.language,
    category: row.category,
    dockerImage: row.docker_image,
    rubric: row.rubric.map((item) => ({
      id: item.id,
      title: item.title,
      type: item.annotations.type === 'positive hli verifier' ? 'positive' : 'negative',
      importance: item.annotations.importance,
      originalTitle: item.original_title ?? item.title,
      change: item.change ?? null,
    })),
  };
}

/** ['rubric', 3, 'id'] → 'rubric[3].id'; an empty path means the row itself. */
function fieldName(path: readonly PropertyKey[]): string {
  let name = '';
  for (const key of path) {
    if (typeof key === 'number') name += `[${key}]`;
    else name += name === '' ? String(key) : `.${String(key)}`;
  }
  return name === '' ? 'row' : name;
}
