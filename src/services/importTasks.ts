// Imports a SWE-Atlas-QnA file from disk: parsed and validated in the import worker, then stored in
// one transaction. Stage and complexity apply when given; left out, a task already stored keeps
// its own (a new one gets `evaluation` and no complexity), so re-importing a file never resets them.
//
// Where the transaction runs is chosen here, once: on a database file the import worker commits on
// a connection of its own (src/services/importWorker.ts) while the main thread keeps serving, the
// write gate holding back main-connection writes meanwhile (src/services/writeGate.ts); a
// ':memory:' database has no second connection, so the main thread commits. Both run storeQnaTasks.
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spoolDir, spoolError } from './spool.js';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../db/contract.js';
import { TasksHaveRuns, type TaskRecord } from '../db/tasks.js';
import { badRequest, DomainError, noCompetitionToWrite } from '../errors.js';
import type { QnaTask } from '../qna/index.js';
import type { Complexity, Stage } from '../scoring/types.js';
import { auditService } from './audit.js';
import { feedFileFromWorker, importFileInWorker, type Problems } from './importInWorker.js';
import type { ImportCounts, ImportFormat, ImportJob, ImportOptions, TaskFeed } from './importJob.js';
import type { Principal } from './principal.js';
import { stageTasks } from './stagedTasks.js';
import { writeGate, type WriteGate } from './writeGate.js';

export interface ImportHooks {
  who?: Principal;
  /** The server's write gate; without one (the command line) nothing else writes meanwhile. */
  gate?: WriteGate;
  /** Runs after the parse, just before the transaction: it may throw to store nothing. */
  beforeWrite?: () => void;
}

function record(t: QnaTask, stage: Stage, complexity: Complexity | null): TaskRecord {
  const { id, rubric, ...meta } = t;
  return { id, type: 'swe_atlas_qna', stage, complexity, plannedRuns: null, qna: meta, rubric };
}

/**
 * The import's one transaction, on whichever connection `store` holds: the tasks, fed a batch at
 * a time (the import worker reads them from the file again rather than holding them all), and the
 * audit entry of an import that changed something.
 */
export function storeQnaTasks(store: Store, job: ImportJob, feed: TaskFeed): Promise<ImportCounts> {
  const { competitionId, format, options, who } = job;
  return store.transaction(
    async (tx) => {
      // The competition may have gone while the file was parsed.
      if (!(await tx.competitions.get(competitionId))) throw noCompetitionToWrite(competitionId);
      const counts: ImportCounts = { imported: 0, updated: 0, unchanged: 0 };
      // Tasks with runs whose type or rubric the file changes, over every batch: the 409 names them all.
      const withRuns: string[] = [];
      await feed(async (batch) => {
        const records: TaskRecord[] = [];
        for (const t of batch) {
          const before = options.stage && options.complexity ? null : await tx.tasks.get(competitionId, t.id);
          const stage = options.stage ?? (before?.stage as Stage | undefined) ?? 'evaluation';
          const complexity = options.complexity ?? (before?.complexity as Complexity | null | undefined) ?? null;
          records.push(record(t, stage, complexity));
        }
        try {
          const c = await tx.tasks.upsertMany(competitionId, records);
          counts.imported += c.imported;
          counts.updated += c.updated;
          counts.unchanged += c.unchanged;
        } catch (e) {
          // Rolls the whole transaction back below; the other batches still name theirs.
          if (!(e instanceof TasksHaveRuns)) throw e;
          withRuns.push(...e.ids);
        }
      });
      if (withRuns.length > 0) throw new TasksHaveRuns(withRuns);
      if (who && counts.imported + counts.updated > 0)
        await auditService(tx).record(tx, who, 'tasks.import', competitionId, `${format} file`, {
          ...counts,
          format,
          ...options,
        });
      return counts;
    },
    { competitionId },
  );
}

function rejected(parsed: Problems): DomainError {
  // A whole-file problem (unreadable Parquet, no rows) has no row to name.
  const errors = parsed.problems.map((p) => ({
    path: p.row === null ? p.field : `row ${p.row}/${p.field}`,
    message: p.message,
  }));
  const detail = errors
    .slice(0, 5)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  const more = parsed.more > 0 ? ` (${errors.length + parsed.more} problems, the first ${errors.length} listed)` : '';
  return badRequest(`import rejected, nothing stored: ${detail}${more}`, errors);
}

export async function importQnaFile(
  store: Store,
  competitionId: string,
  path: string,
  format: ImportFormat,
  options: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportCounts> {
  if (!(await store.competitions.get(competitionId))) throw noCompetitionToWrite(competitionId);
  const job: ImportJob = { competitionId, format, options, who: hooks.who ?? null };
  const own = store.capabilities.workerConnection;
  // Without a file for another connection (PostgreSQL commits without stopping the event loop,
  // from any process; an in-memory SQLite database has no file), this thread commits.
  if (!own) {
    // The worker checks the file, then reads it again a batch at a time, staged to a spool file
    // (./stagedTasks.ts) that this thread's transaction then reads without waiting for the worker
    // (on PostgreSQL the competition's other writers wait for that transaction). No thread holds
    // the whole file.
    const outcome = await feedFileFromWorker(path, format, async (feed) => {
      const staged = await stageTasks(feed);
      try {
        hooks.beforeWrite?.();
        return await storeQnaTasks(store, job, staged.feed);
      } finally {
        staged.remove();
      }
    });
    if (!outcome.ok) throw rejected(outcome);
    return outcome.stored;
  }
  const gate = hooks.gate ?? writeGate();
  const outcome = await importFileInWorker(path, { ...job, database: own.database }, (commit) =>
    gate.exclusive(async () => {
      hooks.beforeWrite?.();
      own.checkWritable();
      try {
        const { counts, events } = await commit();
        // What the worker's transaction told its own connection, told to this one's listeners
        // (score cache, scoring input, live pages) before the answer goes out.
        for (const e of events) own.tell(e);
        return counts;
      } catch (e) {
        // A domain error rolled back; after anything else, re-reading costs little and is exact.
        if (!(e instanceof DomainError)) own.tell({ competitionId, kind: 'tasks' });
        throw e;
      }
    }),
  );
  if (!outcome.ok) throw rejected(outcome);
  return outcome.stored;
}

/** An upload as the route hands it on: the request's pieces as they arrive, or a signed body's bytes read whole. */
export type UploadPieces = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/**
 * Imports an uploaded file: its pieces are written to a temporary file as they arrive (the writes
 * run on libuv's pool), then importQnaFile takes it from there. The event loop never holds the
 * whole upload, as it would gathering a 30 MB body into one buffer and writing it in one synchronous
 * write. An empty upload is a 415; a failing one (a 413 from the body limit) stores nothing.
 */
export async function importQnaUpload(
  store: Store,
  competitionId: string,
  pieces: UploadPieces,
  format: ImportFormat,
  options: ImportOptions,
  hooks: ImportHooks,
) {
  const dir = spoolDir();
  try {
    const path = join(dir, `upload.${format}`);
    let bytes = 0;
    const counted = async function* () {
      for await (const piece of pieces) {
        bytes += piece.length;
        yield piece;
      }
    };
    await pipeline(counted(), createWriteStream(path)).catch((e: unknown) => {
      throw spoolError(e);
    });
    // A bad body, not a bad media type (it was one the route takes): a 400 naming it.
    if (bytes === 0)
      throw badRequest(
        'the file is empty, nothing stored: send a non-empty Parquet file (application/vnd.apache.parquet) ' +
          'or JSON Lines (application/x-ndjson)',
        [{ path: 'body', message: 'is empty' }],
      );
    return await importQnaFile(store, competitionId, path, format, options, hooks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
