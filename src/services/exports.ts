// Exports: every stored run or task of a competition as a byte stream, in constant memory. The
// repository reads one bounded page at a time (src/db/exports.ts); the encoders turn pages into
// chunks (src/exports/); the stream pulls the next chunk only when the client has taken the last.
//
// A runs export is point-in-time: it holds the runs as they stood when it started (run sequence
// `runSeq`), whatever is written while it streams: runs stored later are left out, and runs
// deleted later are still in it (read back from deleted_runs).
import type { Readable } from 'node:stream';
import type { Store } from '../db/contract.js';
import { notFound } from '../errors.js';
import { byteStream, chunked } from '../exports/chunks.js';
import type { RunExportFormat, TaskExportFormat } from '../exports/formats.js';
import { runLines } from '../exports/runs.js';
import { taskLines, type TaskPage } from '../exports/tasks.js';
import type { CriterionGrade } from '../scoring/types.js';
import { revealsAnswers, type Principal } from './principal.js';
import { criteriaView } from './runs.js';

export const EXPORT_CONTENT_TYPES: Record<RunExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  parquet: 'application/vnd.apache.parquet',
};

/** Runs per page for text formats, and per Parquet row group: hyparquet-writer allocates about 8 KB per
 * row while it encodes a group, so a group's size bounds the memory an export adds (bench/export.ts). */
export const RUN_PAGE = 2000;
export const PARQUET_ROW_GROUP = 2000;
const TASK_PAGE = 500;

export interface ExportBody {
  stream: Readable;
  contentType: string;
  /** A file name for content-disposition. */
  filename: string;
  /** Runs exports: the run sequence the export stands at. */
  runSeq?: number;
}

const fileName = (competitionId: string, what: string, format: string) =>
  `${competitionId.replaceAll(':', '_')}-${what}.${format}`;

export function exportsService(store: Store, pages = { runs: RUN_PAGE, parquet: PARQUET_ROW_GROUP, tasks: TASK_PAGE }) {
  async function competition(id: string) {
    const c = await store.competitions.get(id);
    if (!c) throw notFound(`competition ${id} does not exist`);
    return c;
  }

  /** Keyset pages: each read whole before it is handed on, so no statement stays open in between. */
  async function* runPages(competitionId: string, upTo: number, size: number, reveal: boolean) {
    for (let after = 0; ;) {
      const page = await store.exports.runPage(competitionId, after, upTo, size);
      if (!reveal)
        for (const row of page)
          if (row[14] !== null) row[14] = JSON.stringify(criteriaView(JSON.parse(row[14]) as CriterionGrade[], false));
      if (page.length > 0) yield page;
      if (page.length < size) return;
      after = page[page.length - 1]![0];
    }
  }

  async function* taskPages(competitionId: string): AsyncGenerator<TaskPage> {
    for (let after = ''; ;) {
      const tasks = await store.exports.taskPage(competitionId, after, pages.tasks);
      if (tasks.length === 0) return;
      const last = tasks[tasks.length - 1]![0];
      yield { tasks, criteria: await store.exports.criteria(competitionId, tasks[0]![0], last) };
      if (tasks.length < pages.tasks) return;
      after = last;
    }
  }

  return {
    /**
     * Every run as the competition stands now, in storage order; criterion ids (the answer key)
     * only for the admin or when the competition reveals answers, as in run reads.
     */
    async runs(competitionId: string, format: RunExportFormat, who: Principal | null): Promise<ExportBody> {
      const reveal = revealsAnswers(await competition(competitionId), who);
      const runSeq = await store.exports.runSeq();
      const chunks =
        format === 'parquet'
          ? // The Parquet writer (hyparquet-writer and hyparquet, 120 modules) loads on the first
            // Parquet export, not with every server start.
            (await import('../exports/parquet.js')).runsParquet(runPages(competitionId, runSeq, pages.parquet, reveal))
          : chunked(runLines(runPages(competitionId, runSeq, pages.runs, reveal), format));
      return {
        stream: byteStream(chunks),
        contentType: EXPORT_CONTENT_TYPES[format],
        filename: fileName(competitionId, 'runs', format),
        runSeq,
      };
    },

    /** Every task in id order; the answer key only for the admin or when the competition reveals it. */
    async tasks(competitionId: string, format: TaskExportFormat, who: Principal | null): Promise<ExportBody> {
      // Looked up for everyone, the admin too: an unknown competition is a 404, not an empty file.
      const reveal = revealsAnswers(await competition(competitionId), who);
      const stream = byteStream(chunked(taskLines(taskPages(competitionId), format, reveal)));
      return { stream, contentType: EXPORT_CONTENT_TYPES[format], filename: fileName(competitionId, 'tasks', format) };
    },
  };
}
