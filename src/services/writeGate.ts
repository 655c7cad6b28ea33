// The write gate: one asynchronous lock between the main connection's writers and an import that
// commits on its own connection (src/services/importInWorker.ts). Main-thread writes are
// synchronous, so while the import's worker holds SQLite's write lock a write here would wait in
// SQLite's busy handler with the whole event loop stopped. Instead every write on the main
// connection runs through `write()` (src/plugins/writeGate.ts for requests, the nonce of a signed
// request, the snapshot timer), which waits while an import commits; the import commits inside
// `exclusive()`, which waits for the writes already running. Many writes run at once; they never
// wait for one another. A waiting import goes before writes that arrive after it, so a stream of
// writes cannot starve it. Reads never come here.
import type { Store, TxScope } from '../db/contract.js';

interface Waiter {
  exclusive: boolean;
  admit: () => void;
}

export function writeGate() {
  let writing = 0;
  let importing = false;
  const queue: Waiter[] = [];

  /** Admits waiters from the front, in order, while they fit. */
  function admit(): void {
    while (queue.length > 0 && !importing) {
      const next = queue[0]!;
      if (next.exclusive) {
        if (writing > 0) return;
        importing = true;
      } else writing++;
      queue.shift();
      next.admit();
    }
  }

  function enter(exclusive: boolean): Promise<void> | null {
    const free = !importing && queue.length === 0 && (!exclusive || writing === 0);
    if (free) {
      if (exclusive) importing = true;
      else writing++;
      return null;
    }
    return new Promise((resolve) => queue.push({ exclusive, admit: resolve }));
  }

  function leave(exclusive: boolean): void {
    if (exclusive) importing = false;
    else writing--;
    admit();
  }

  async function run<T>(exclusive: boolean, fn: () => T | Promise<T>): Promise<T> {
    const wait = enter(exclusive);
    if (wait) await wait;
    try {
      return await fn();
    } finally {
      leave(exclusive);
    }
  }

  return {
    /** Runs `fn`, a write on the main connection, once no import is committing. */
    write: <T>(fn: () => T | Promise<T>): Promise<T> => run(false, fn),
    /** Runs `fn`, an import's commit on another connection, with no main-connection write running. */
    exclusive: <T>(fn: () => Promise<T>): Promise<T> => run(true, fn),
    /** For the metrics: whether an import holds the gate, and how many writes wait for it. */
    state: () => ({ importing, waiting: queue.filter((w) => !w.exclusive).length }),
  };
}

export type WriteGate = ReturnType<typeof writeGate>;

/**
 * A write transaction for a route that takes the gate itself (`config.ownWriteGate`). One that
 * recounts a competition runs on a worker's connection where the store has one (SQLite on a file:
 * src/db/sqlite/elsewhere.ts), so it holds the gate exclusively, as an import's commit does: no
 * write on the main connection waits in SQLite's busy handler meanwhile, and reads go on. Any
 * other shares the gate with the other writes.
 */
export function gatedTransaction<T>(
  store: Store,
  gate: WriteGate,
  fn: (tx: Store) => Promise<T>,
  scope: TxScope,
): Promise<T> {
  const run = () => store.transaction(fn, scope);
  return scope.recounts && store.capabilities.workerConnection ? gate.exclusive(run) : gate.write(run);
}
