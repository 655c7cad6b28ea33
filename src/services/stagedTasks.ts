// An import's tasks as the import worker hands them over, written to a spool file before the
// import's transaction opens and read back inside it a batch at a time, synchronously. On
// PostgreSQL that transaction holds the competition's row (docs/POSTGRES.md, "Writers take
// turns"): it waits for nothing but its own statements, not for the worker reading and parsing the
// file again, batch by batch. No thread holds the whole file either way.
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { QnaTask } from '../qna/index.js';
import { spoolDir, writeAll } from './spool.js';

/** Hands tasks to `take` a batch at a time, waiting for each (importTasks.ts's TaskFeed). */
type TaskFeed = (take: (batch: QnaTask[]) => Promise<void>) => Promise<void>;

export interface StagedTasks {
  /** Hands the staged tasks to `take` in the batches they came in; no await but `take`'s own. */
  feed: TaskFeed;
  /** Deletes the spool file. */
  remove(): void;
}

/** Writes every batch `feed` gives to a spool file of its own. */
export async function stageTasks(feed: TaskFeed): Promise<StagedTasks> {
  const dir = spoolDir();
  const path = join(dir, 'tasks.json');
  /** Bytes of each batch, in order: the file is the batches' JSON arrays back to back. */
  const sizes: number[] = [];
  try {
    const fd = openSync(path, 'w');
    try {
      await feed(async (batch) => {
        const bytes = Buffer.from(JSON.stringify(batch), 'utf8');
        writeAll(fd, bytes);
        sizes.push(bytes.length);
      });
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    async feed(take) {
      const fd = openSync(path, 'r');
      try {
        for (const size of sizes) {
          const bytes = Buffer.allocUnsafe(size);
          for (let at = 0; at < size;) at += readSync(fd, bytes, at, size - at, null);
          await take(JSON.parse(bytes.toString('utf8')) as QnaTask[]);
        }
      } finally {
        closeSync(fd);
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
