// Worker thread entry for imports (the main thread's side is ./importInWorker). For each job it
// parses and validates the file, then either sends the tasks in batches (`target` null: the main
// thread stores them) or keeps them until told to commit or abort. A commit opens its own
// connection to the database file and stores the tasks through the same storeQnaTasks (and so the
// same repositories, rules and audit entry) as the main thread would; in WAL mode the main
// connection keeps reading the state before the import until this transaction commits.
import { parentPort } from 'node:worker_threads';
import { openDatabase, type Db } from '../db/client.js';
import type { WriteEvent } from '../db/events.js';
import { createSqliteStore } from '../db/sqlite/store.js';
import { DomainError } from '../errors.js';
import { parseQnaFile } from '../qna/parseFile.js';
import type { QnaTask } from '../qna/types.js';
import type { CommitTarget, Failure, FromWorker, ToWorker } from './importInWorker.js';
import { storeQnaTasks } from './importTasks.js';

const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);
/** Parsed files waiting for their commit or abort. */
const held = new Map<number, { tasks: QnaTask[]; target: CommitTarget }>();

function failure(e: unknown): Failure {
  if (e instanceof DomainError)
    return { message: e.detail, domain: { kind: e.kind, detail: e.detail, errors: e.errors, reason: e.reason } };
  return { message: e instanceof Error ? e.message : String(e) };
}

async function parse(id: number, path: string, format: CommitTarget['format'], target: CommitTarget | null) {
  const tasks: QnaTask[] = [];
  try {
    const parsed = await parseQnaFile(path, format, (batch) => {
      if (target) for (const t of batch) tasks.push(t);
      else send({ id, tasks: batch });
    });
    if (parsed.ok && target) held.set(id, { tasks, target });
    send({ id, parsed: parsed.ok ? { ok: true } : parsed });
  } catch (e) {
    send({ id, failed: failure(e) });
  }
}

async function commit(id: number): Promise<void> {
  const job = held.get(id);
  held.delete(id);
  if (!job) return send({ id, failed: { message: `no parsed import ${id} to commit` } });
  const { tasks, target } = job;
  let db: Db | undefined;
  try {
    db = openDatabase(target.database);
    const store = createSqliteStore(db);
    const events: WriteEvent[] = [];
    store.listeners.add((e) => events.push(e));
    const counts = await storeQnaTasks(store, target, tasks);
    send({ id, committed: { counts, events } });
  } catch (e) {
    send({ id, failed: failure(e) });
  } finally {
    db?.$client.close();
  }
}

port.on('message', (m: ToWorker) => {
  if ('parse' in m) void parse(m.id, m.parse.path, m.parse.format, m.target);
  else if ('commit' in m) void commit(m.id);
  else held.delete(m.id);
});
