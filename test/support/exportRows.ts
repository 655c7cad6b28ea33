// What an export row should hold, made from the JSON run listing, and each format read back.
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { TestApp } from './app.js';

export interface ListedRun {
  seq: number;
  runId: string;
  taskId: string;
  kind: string;
  minerHotkey: string | null;
  validatorId: string | null;
  attemptNo: number | null;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
  timeTakenSeconds: number | null;
  agentSteps: number | null;
  createdAt: string;
  criteria: unknown[] | null;
  judge: { digest: string } | null;
  answerDate: string | null;
  stale: boolean;
}

/** Every stored run, through GET …/runs and its cursor. */
export async function listedRuns(t: TestApp, c: string): Promise<ListedRun[]> {
  const all: ListedRun[] = [];
  for (let cursor = ''; ;) {
    const page = (await t.call({ method: 'GET', url: `/v1/competitions/${c}/runs?limit=1000${cursor}` })).body;
    all.push(...page.runs);
    if (page.nextCursor === null) return all;
    cursor = `&cursor=${page.nextCursor}`;
  }
}

/** The export row of a listed run (NDJSON shape). */
export const exportRow = (r: ListedRun) => ({
  seq: r.seq,
  runId: r.runId,
  taskId: r.taskId,
  kind: r.kind,
  minerHotkey: r.minerHotkey,
  validatorId: r.validatorId,
  attemptNo: r.attemptNo,
  resolved: r.resolved,
  tokensInput: r.tokens?.input ?? null,
  tokensCachedInput: r.tokens?.cachedInput ?? null,
  tokensOutput: r.tokens?.output ?? null,
  timeTakenSeconds: r.timeTakenSeconds,
  agentSteps: r.agentSteps,
  createdAt: r.createdAt,
  criteria: r.criteria,
  judgeDigest: r.judge?.digest ?? null,
  answerDate: r.answerDate,
  stale: r.stale,
});

/** The same row as CSV text fields: null empty, criteria as JSON text. */
export const csvRow = (r: ListedRun) =>
  Object.fromEntries(
    Object.entries(exportRow(r)).map(([k, v]) => [
      k,
      v === null ? '' : k === 'criteria' ? JSON.stringify(v) : String(v),
    ]),
  );

/** The same row as read from Parquet: criteria as JSON text. */
export const parquetRow = (r: ListedRun) => ({
  ...exportRow(r),
  criteria: r.criteria === null ? null : JSON.stringify(r.criteria),
});

export const ndjsonRows = (text: string) => {
  if (!text.endsWith('\n')) throw new Error('NDJSON must end with a line end');
  return text
    .slice(0, -1)
    .split('\n')
    .filter((l, i, a) => a.length > 1 || l !== '')
    .map((l) => JSON.parse(l));
};

/** Rows read with hyparquet (another package than the writer), INT64 bigints as numbers, and the row groups. */
export async function parquetRows(bytes: Uint8Array) {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const rows = (await parquetReadObjects({ file, metadata })).map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : (v ?? null)])),
  );
  return { rows, numRows: Number(metadata.num_rows), rowGroups: metadata.row_groups.length };
}
