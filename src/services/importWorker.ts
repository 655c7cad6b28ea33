// Worker thread entry for imports (the main thread's side is ./importInWorker). For each job it
// parses and validates the file and keeps its name until told to read, commit or abort. A read
// (`target` null: the main thread stores the tasks) parses the file again and sends its tasks a
// batch at a time, each once the main thread asks for the next. A commit opens its
// own connection to the database file and stores the tasks through the same storeQnaTasks (and so
// the same repositories, rules and audit entry) as the main thread would, reading them from the
// file again a batch at a time: the worker never holds a whole file's tasks (a 30 MB file is some
// 50 MB of objects, against the server's memory bound). In WAL mode the main connection keeps reading the
// state before the import until this transaction commits.
import { parentPort } from 'node:worker_threads';
import { openDatabase, type Db } from '../db/client.js';
import type { WriteEvent } from '../db/events.js';
import { createSqliteStore } from '../db/sqlite/store.js';
import { parseQnaFile } from '../qna/parseFile.js';
import type { QnaTask } from '../qna/types.js';
import type { CommitTarget, FromWorker, ToWorker } from './importInWorker.js';
import { storeQnaTasks } from './importTasks.js';
import { failure } from '../workerFailure.js';

const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);
/** Checked files waiting for their read, commit or abort. */
const held = new Map<number, { path: string; format: CommitTarget['format']; target: CommitTarget | null }>();
/** Reads waiting for the main thread to take their last batch: true to go on, false to stop. */
const waiting = new Map<number, (go: boolean) => void>();

/** Thrown into a read the main thread stopped. */
class Stopped extends Error {}

async function parse(id: number, path: string, format: CommitTarget['format'], target: CommitTarget | null) {
  try {
    const parsed = await parseQnaFile(path, format, () => {});
    if (parsed.ok) held.set(id, { path, format, target });
    send({ id, parsed: parsed.ok ? { ok: true } : parsed });
  } catch (e) {
    send({ id, failed: failure(e) });
  }
}

/** Reads a checked file again, handing its tasks to `take` a batch at a time. */
async function readAgain(
  path: string,
  format: CommitTarget['format'],
  take: (batch: QnaTask[]) => Promise<void>,
): Promise<void> {
  if (!(await parseQnaFile(path, format, take)).ok) throw new Error(`import file ${path} changed after it was checked`);
}

async function read(id: number): Promise<void> {
  const job = held.get(id);
  held.delete(id);
  if (!job) return send({ id, failed: { message: `no parsed import ${id} to read` } });
  try {
    await readAgain(
      job.path,
      job.format,
      (batch) =>
        new Promise<void>((resolve, reject) => {
          waiting.set(id, (go) => (go ? resolve() : reject(new Stopped())));
          send({ id, tasks: batch });
        }),
    );
    send({ id, parsed: { ok: true } });
  } catch (e) {
    if (!(e instanceof Stopped)) send({ id, failed: failure(e) });
  } finally {
    waiting.delete(id);
  }
}

async function commit(id: number): Promise<void> {
  const job = held.get(id);
  held.delete(id);
  if (!job?.target) return send({ id, failed: { message: `no parsed import ${id} to commit` } });
  const { path, target } = job;
  let db: Db | undefined;
  try {
    // SQLite's default 2 MiB page cache: the commit appends, and a bigger one (the main
    // connection's 8 MiB) filled with the file's pages would be held by this thread until it stops.
    db = openDatabase(target.database, { cacheMiB: 2 });
    const store = createSqliteStore(db);
    // Told once each: a commit writes a batch at a time, each telling the same 'tasks' event.
    const events = new Map<string, WriteEvent>();
    store.listeners.add((e) => events.set(JSON.stringify(e), e));
    const counts = await storeQnaTasks(store, target, (take) => readAgain(path, target.format, take));
    send({ id, committed: { counts, events: [...events.values()] } });
  } catch (e) {
    send({ id, failed: failure(e) });
  } finally {
    db?.$client.close();
  }
}

/** Tells a read waiting on its last batch whether to go on. */
function resume(id: number, go: boolean): void {
  const w = waiting.get(id);
  waiting.delete(id);
  w?.(go);
}

port.on('message', (m: ToWorker) => {
  if ('parse' in m) void parse(m.id, m.parse.path, m.parse.format, m.target);
  else if ('commit' in m) void commit(m.id);
  else if ('read' in m) void read(m.id);
  else if ('next' in m) resume(m.id, true);
  else {
    held.delete(m.id);
    resume(m.id, false);
  }
});
