// Worker thread entry for transactions run elsewhere (the main thread's side is ./elsewhere.ts).
// Each transaction opens its own connection to the database file and runs through the same
// SQLite store as the main connection's (./store.ts): the main thread's function calls the
// repositories, each call a message answered with its result, and ends with a commit or a
// rollback. The statements run here, so a transaction that recounts every run of a competition
// (seconds at the reference size) never holds the main thread's event loop; in WAL mode the main
// connection keeps reading the state before it until it commits.
import { parentPort } from 'node:worker_threads';
import { failure } from '../../workerFailure.js';
import { openDatabase, type Db } from '../client.js';
import type { Store } from '../contract.js';
import type { WriteEvent } from '../events.js';
import { mapSqliteError } from './errors.js';
import { createSqliteStore } from './store.js';
import type { FromTxWorker, ToTxWorker } from './elsewhere.js';

const port = parentPort!;
const send = (m: FromTxWorker) => port.postMessage(m);

/** An open transaction: its store, then one level for each savepoint opened inside it. */
interface Open {
  tx: Store;
  levels: { end: (commit: boolean) => void }[];
}
const open = new Map<number, Open>();

/**
 * Opens one level, `run` (the transaction, or a savepoint in it), whose function waits until the
 * main thread ends it: committed (released), or rolled back. Answers the message that opened it.
 */
function level(id: number, run: (fn: (tx: Store) => Promise<void>) => Promise<void>): Promise<void> {
  return run(
    (tx) =>
      new Promise<void>((resolve, reject) => {
        const o = open.get(id) ?? { tx, levels: [] };
        open.set(id, o);
        o.levels.push({ end: (commit) => (commit ? resolve() : reject(new RolledBack())) });
        send({ id, value: undefined });
      }),
  );
}

class RolledBack extends Error {}

async function begin(id: number, database: string): Promise<void> {
  let db: Db | undefined;
  try {
    db = openDatabase(database);
    const store = createSqliteStore(db);
    const events: WriteEvent[] = [];
    store.listeners.add((e) => events.push(e));
    await level(id, (fn) => store.transaction(fn));
    send({ id, committed: events });
  } catch (e) {
    if (e instanceof RolledBack) send({ id, value: undefined });
    // Opening the file (or its migrations) may fail too: a busy or unreadable file is a 503, as on the main connection.
    else send({ id, failed: failure(mapSqliteError(e)) });
  } finally {
    open.delete(id);
    db?.$client.close();
  }
}

async function call(id: number, repo: string, method: string, args: unknown[]): Promise<void> {
  try {
    const tx = open.get(id)?.tx as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>;
    const fn = tx?.[repo]?.[method];
    if (typeof fn !== 'function') throw new Error(`no open transaction ${id}, or no method ${repo}.${method}`);
    send({ id, value: await fn.apply(tx[repo], args) });
  } catch (e) {
    send({ id, failed: failure(e) });
  }
}

/** Opens a savepoint inside the open transaction; its end answers (released, or rolled back to). */
function nest(id: number): void {
  const o = open.get(id);
  if (!o) return send({ id, failed: { message: `no open transaction ${id}` } });
  level(id, (fn) => o.tx.transaction(fn)).then(
    () => send({ id, value: undefined }),
    (e: unknown) => send(e instanceof RolledBack ? { id, value: undefined } : { id, failed: failure(e) }),
  );
}

port.on('message', (m: ToTxWorker) => {
  if ('begin' in m) void begin(m.id, m.begin);
  else if ('call' in m) void call(m.id, m.call.repo, m.call.method, m.call.args);
  else if ('nest' in m) nest(m.id);
  else {
    const last = open.get(m.id)?.levels.pop();
    if (last) last.end(m.end === 'commit');
    else send({ id: m.id, failed: { message: `no open transaction ${m.id}` } });
  }
});
