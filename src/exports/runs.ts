// The runs export in NDJSON and CSV: one line per stored run, in storage order. Columns as
// API.md "Exports" lists them; `criteria` (QnA runs sent with votes, else null) is an array in
// NDJSON and its JSON text in CSV, in rubric order, with criterion ids only beside the answer key.
// `judgeDigest` and `answerDate` as the QnA run sent them; `stale` when it was graded under a judge
// configuration other than the one in force as the export is read (SPEC 12).
import type { RunExportRow } from '../db/exports.js';
import { csvRecord } from './csv.js';

export const RUN_COLUMNS = [
  'seq',
  'runId',
  'taskId',
  'kind',
  'minerHotkey',
  'validatorId',
  'attemptNo',
  'resolved',
  'tokensInput',
  'tokensCachedInput',
  'tokensOutput',
  'timeTakenSeconds',
  'agentSteps',
  'createdAt',
  'criteria',
  'judgeDigest',
  'answerDate',
  'stale',
] as const;

/** Where to read runs from: pages of rows in seq order (src/services/exports.ts). */
export type RunPages = AsyncIterable<RunExportRow[]>;

/** The stored criteria JSON, as one line (it always is one; this guards the NDJSON framing). */
const oneLine = (json: string) => (json.includes('\n') ? JSON.stringify(JSON.parse(json)) : json);

export function ndjsonRun(r: RunExportRow): string {
  const line = JSON.stringify({
    seq: r[0],
    runId: r[1],
    taskId: r[2],
    kind: r[3],
    minerHotkey: r[4],
    validatorId: r[5],
    attemptNo: r[6],
    resolved: r[7] === 1,
    tokensInput: r[8],
    tokensCachedInput: r[9],
    tokensOutput: r[10],
    timeTakenSeconds: r[11],
    agentSteps: r[12],
    createdAt: r[13],
    judgeDigest: r[15],
    answerDate: r[16],
    stale: r[17] === 1,
    criteria: null,
  });
  // The stored criteria are JSON already: spliced in for the trailing `null}`, not parsed and re-serialized.
  return r[14] === null ? `${line}\n` : `${line.slice(0, -5)}${oneLine(r[14])}}\n`;
}

export function csvRun(r: RunExportRow): string {
  return csvRecord([
    r[0],
    r[1],
    r[2],
    r[3],
    r[4],
    r[5],
    r[6],
    r[7] === 1,
    r[8],
    r[9],
    r[10],
    r[11],
    r[12],
    r[13],
    r[14],
    r[15],
    r[16],
    r[17] === 1,
  ]);
}

export async function* runLines(pages: RunPages, format: 'ndjson' | 'csv'): AsyncGenerator<string> {
  if (format === 'csv') yield csvRecord(RUN_COLUMNS);
  const line = format === 'csv' ? csvRun : ndjsonRun;
  for await (const page of pages) for (const r of page) yield line(r);
}
