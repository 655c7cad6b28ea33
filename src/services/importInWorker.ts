// The import worker (./importWorker): one thread, started on first use, kept without holding the
// process open, and stopped once no import has used it for a while (imports are rare; an idle
// worker isolate keeps 25-40 MB of heap that a server would otherwise hold for good). It parses
// and validates an import file off the main thread, keeping only the file's name, then either
// reads it again and hands its tasks here a batch at a time, each after the one before was
// stored (feedFileFromWorker: PostgreSQL, or a ':memory:' database, which no other connection can
// reach), or stores them on a connection of its own when told to (importFileInWorker: a SQLite
// database file). Either way the main thread's event loop never holds the parse, and for a SQLite
// file never the commit. Should the worker stop, every import in it fails with a 503 and the next
// import starts a new worker.
import type { WriteEvent } from '../db/events.js';
import { unavailable, type DomainError } from '../errors.js';
import type { QnaProblem } from '../qna/problems.js';
import type { QnaTask } from '../qna/types.js';
import { onDemandWorker } from '../workerThread.js';
import type { ImportCounts, ImportFormat, ImportJob, TaskFeed } from './importJob.js';
import { revive, type Failure } from '../workerFailure.js';

/** What the worker stores a parsed file as, and in which database file. */
export type CommitTarget = ImportJob & { database: string };
export interface Committed {
  counts: ImportCounts;
  /** The write events the worker's transaction emitted, for the main connection's listeners. */
  events: WriteEvent[];
}
export type Problems = { ok: false; problems: QnaProblem[]; more: number };

export type ToWorker = { id: number } & (
  | { parse: { path: string; format: ImportFormat }; target: CommitTarget | null }
  | { commit: true }
  | { read: true }
  | { next: true }
  | { abort: true }
);
type Reply = { parsed: { ok: true } | Problems } | { committed: Committed } | { failed: Failure };
export type FromWorker = { id: number } & ({ tasks: QnaTask[] } | Reply);

/** How long the worker outlives its last job: long enough for a batch of imports sent one after
 * another (milliseconds apart), short enough that its memory (tens of MB) is not held through the
 * run ingest that usually follows a competition's setup, which the server's memory bound counts. */
let idleMs = 1_000;
const importWorker = onDemandWorker<FromWorker>('importWorker', import.meta.url, () => idleMs);

/** Whether the import worker is running (tests, diagnostics). */
export const importWorkerRunning = importWorker.running;
/** Stops the worker at once, whatever it is doing (tests: its jobs fail as a crash would fail them). */
export const terminateImportWorkerForTests = importWorker.terminate;
/** Sets how long the worker outlives its last job (tests). */
export function setImportWorkerIdleMs(ms: number): void {
  idleMs = ms;
}

/** One job's exchange with the worker: each `ask` posts a message and waits for its answer. */
function start() {
  let stopped: DomainError | null = null;
  let pending: { resolve(r: Reply): void; reject(e: Error): void } | null = null;
  /** Where a read's batches go, one at a time: the worker sends the next when told `next`. */
  let take: ((tasks: QnaTask[]) => Promise<void>) | null = null;
  // A job in flight keeps the process alive until it ends.
  const job = importWorker.start(
    (m) => {
      if ('tasks' in m) {
        const into = take;
        if (!into) return;
        into(m.tasks).then(
          () => job.worker.postMessage({ id: job.id, next: true }),
          (e: unknown) => {
            // The batch was not stored: the worker stops reading, the read answers the error.
            job.worker.postMessage({ id: job.id, abort: true });
            const p = pending;
            pending = null;
            take = null;
            p?.reject(e instanceof Error ? e : new Error(String(e)));
          },
        );
        return;
      }
      const p = pending;
      pending = null;
      if (p && 'failed' in m) p.reject(revive(m.failed, 'import worker'));
      else p?.resolve(m);
    },
    (why) => {
      stopped = unavailable(
        `the import worker stopped (${why}) before it answered, and the import was not acknowledged; ` +
          'send it again: an import that was stored comes back as unchanged',
        'import-worker-stopped',
      );
      pending?.reject(stopped);
      pending = null;
    },
  );
  const { id, worker: w } = job;
  const ask = (message: Omit<ToWorker, 'id'>) =>
    new Promise<Reply>((resolve, reject) => {
      if (stopped) return reject(stopped);
      pending = { resolve, reject };
      w.postMessage({ id, ...message });
    });
  return {
    /** Asks the worker to read the held file again, handing each batch to `into` before the next comes. */
    async read(into: (tasks: QnaTask[]) => Promise<void>): Promise<void> {
      take = into;
      try {
        parsedOf(await ask({ read: true }));
      } finally {
        take = null;
      }
    },
    ask,
    tell(message: Omit<ToWorker, 'id'>): void {
      if (!stopped) w.postMessage({ id, ...message });
    },
    end: () => job.end(),
  };
}

const parsedOf = (r: Reply) => {
  if (!('parsed' in r)) throw new Error('import worker: answered a parse with something else');
  return r.parsed;
};

/**
 * Checks `path` in the worker, which keeps only its name. A valid file is then handed to `store`
 * as a feed: the worker reads it again and hands its tasks over a batch at a time, each after
 * the one before was taken, so neither thread holds the whole file's tasks (a 30 MB file is some
 * 50 MB of objects). Should `store` or a batch fail, the worker stops reading.
 */
export async function feedFileFromWorker<T>(
  path: string,
  format: ImportFormat,
  store: (feed: TaskFeed) => Promise<T>,
): Promise<{ ok: true; stored: T } | Problems> {
  const job = start();
  let held = false;
  try {
    const parsed = parsedOf(await job.ask({ parse: { path, format }, target: null }));
    if (!parsed.ok) return parsed;
    held = true;
    const stored = await store(async (take) => {
      held = false;
      await job.read(take);
    });
    return { ok: true, stored };
  } finally {
    if (held) job.tell({ abort: true });
    job.end();
  }
}

/**
 * Parses `path` in the worker, which keeps the tasks. A valid file is then handed to `store`,
 * which decides when the worker commits (`commit()`: the worker stores the tasks on its own
 * connection to `target.database` and answers with what the transaction stored and emitted);
 * should `store` throw before calling it, the worker drops the tasks.
 */
export async function importFileInWorker<T>(
  path: string,
  target: CommitTarget,
  store: (commit: () => Promise<Committed>) => Promise<T>,
): Promise<{ ok: true; stored: T } | Problems> {
  const job = start();
  let held = false;
  try {
    const parsed = parsedOf(await job.ask({ parse: { path, format: target.format }, target }));
    if (!parsed.ok) return parsed;
    held = true;
    const stored = await store(async () => {
      held = false;
      const r = await job.ask({ commit: true });
      if (!('committed' in r)) throw new Error('import worker: answered a commit with something else');
      return r.committed;
    });
    return { ok: true, stored };
  } finally {
    if (held) job.tell({ abort: true });
    job.end();
  }
}
