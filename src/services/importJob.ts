// What an import is about, shared by the service that stores it (importTasks.ts) and the thread
// that parses and may commit it (importInWorker.ts, importWorker.ts).
import type { QnaTask } from '../qna/index.js';
import type { Complexity, Stage } from '../scoring/types.js';
import type { Principal } from './principal.js';

export type ImportFormat = 'parquet' | 'jsonl';
export interface ImportOptions {
  stage?: Stage;
  complexity?: Complexity;
}
export interface ImportCounts {
  imported: number;
  updated: number;
  unchanged: number;
}
/** What an import stores, and for whom: `who` gets the audit entry (none from the command line). */
export interface ImportJob {
  competitionId: string;
  format: ImportFormat;
  options: ImportOptions;
  who: Principal | null;
}

/** Hands a file's tasks to `take` a batch at a time, waiting for each. */
export type TaskFeed = (take: (batch: QnaTask[]) => Promise<void>) => Promise<void>;
