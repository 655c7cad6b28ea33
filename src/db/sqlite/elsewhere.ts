// Transactions run elsewhere: on a connection of their own, in a worker thread (./txWorker.ts),
// for the writes that recount a whole competition (new token weights, a validator excluded or
// included again, a new judge configuration: src/db/aggregates.ts). On the main connection such a
// write holds the event loop for as long as its statements run (1.6-1.9 s at the reference size),
// and with it every request, /livez included. Here the caller's function runs on this thread as
// usual, against a store whose every repository call is a message to the worker, answered with
// its result; the statements run there. The main connection is not in a transaction meanwhile, so
// reads go on and see the state before until the commit; the caller holds the write gate
// exclusively (src/services/writeGate.ts), so no write on the main connection waits in SQLite's
// busy handler with the event loop stopped. The transaction's write events are told to this
// connection's listeners once it commits, as the import worker's are.
import { unavailable } from '../../errors.js';
import { revive, type Failure } from '../../workerFailure.js';
import { onDemandWorker } from '../../workerThread.js';
import type { Store, StoreRepos } from '../contract.js';
import type { WriteEvent } from '../events.js';

export type ToTxWorker = { id: number } & (
  | { begin: string }
  | { call: { repo: string; method: string; args: unknown[] } }
  | { nest: true }
  | { end: 'commit' | 'rollback' }
);
export type FromTxWorker = { id: number } & ({ value: unknown } | { committed: WriteEvent[] } | { failed: Failure });
type Reply = FromTxWorker;

/** The worker, which outlives its last transaction by two seconds (such writes come in bursts of a few). */
const txWorker = onDemandWorker<Reply>('txWorker', import.meta.url, () => 2_000);

/** Whether the worker is running (tests). */
export const txWorkerRunning = txWorker.running;

/** Stops the worker at once, whatever it is doing (tests: a worker that dies mid-transaction). */
export const terminateTxWorkerForTests = txWorker.terminate;

/** Every kind of change a transaction can tell, for a competition whose transaction's outcome is unknown. */
const everything = (competitionId: string): WriteEvent[] =>
  (['rebuild', 'settings', 'tasks', 'miners', 'metagraph', 'runs'] as const).map((kind) => ({ competitionId, kind }));

/**
 * Runs `fn` in one transaction on a connection of the worker's own to `database`: all of its
 * writes commit together, or none. `repos` names the store's repositories; `tell` hands the
 * transaction's write events to the main connection's listeners once it committed. Should the
 * worker stop after the commit was asked, the outcome is unknown: every kind of change of
 * `competitionId` is told (re-reading costs little and is exact), and the caller gets a 503.
 */
export async function transactionElsewhere<T>(
  database: string,
  repos: readonly (keyof StoreRepos)[],
  fn: (tx: Store) => Promise<T>,
  tell: (event: WriteEvent) => void,
  competitionId?: string,
): Promise<T> {
  /**
   * The transaction's answers awaited, in the order asked. Answers carry no sequence number: the
   * worker answers each message before it takes the next (the repositories are synchronous, and
   * what follows a call, a commit included, runs in microtasks), so they come back in order. A
   * repository method that waited for a timer or I/O would break this.
   */
  const queue: ((r: Reply | Error) => void)[] = [];
  /** Set once the worker stopped; `lost`, when it stopped before answering a message. */
  let gone = false;
  let lost = false;
  const job = txWorker.start(
    (m) => queue.shift()?.(m),
    (why) => {
      gone = true;
      for (const answer of queue.splice(0)) answer(new Error(`the transaction worker stopped (${why})`));
    },
  );
  const { id, worker: w } = job;

  const ask = (message: Omit<ToTxWorker, 'id'>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (gone) {
        lost = true;
        return reject(stopped());
      }
      // Sent first: a message that cannot be (an argument not cloneable) throws, a rejection, and
      // waits for no answer, which would be another message's.
      w.postMessage({ id, ...message });
      queue.push((r) => {
        if (r instanceof Error) {
          lost = true;
          reject(stopped(r.message));
        } else if ('failed' in r) reject(revive(r.failed, 'transaction worker'));
        else resolve('committed' in r ? r.committed : r.value);
      });
    });

  const tx = proxyStore(repos, ask);
  try {
    await ask({ begin: database });
    let result: T;
    try {
      result = await fn(tx);
    } catch (e) {
      await ask({ end: 'rollback' }).catch(() => {});
      throw e;
    }
    let events: WriteEvent[];
    try {
      events = (await ask({ end: 'commit' })) as WriteEvent[];
    } catch (e) {
      // A COMMIT that failed rolled back; a worker that stopped leaves the outcome unknown.
      if (lost && competitionId !== undefined) for (const event of everything(competitionId)) tell(event);
      throw e;
    }
    for (const event of events) tell(event);
    return result;
  } finally {
    job.end();
  }
}

const stopped = (why = 'it stopped') =>
  unavailable(
    `the transaction worker could not finish (${why}); nothing was acknowledged: ` +
      'send the request again, it answers the same once stored',
    'transaction-worker-stopped',
  );

/** The store a transaction elsewhere hands its function: every repository call is a message. */
function proxyStore(repos: readonly (keyof StoreRepos)[], ask: (m: Omit<ToTxWorker, 'id'>) => Promise<unknown>) {
  const tx: Record<string, unknown> = {
    engine: 'sqlite',
    listeners: new Set(),
    capabilities: {},
    ready: async () => true,
    close: async () => {
      throw new Error('close() inside a transaction');
    },
    async transaction<T>(inner: (t: Store) => Promise<T>): Promise<T> {
      await ask({ nest: true });
      try {
        const result = await inner(tx as unknown as Store);
        await ask({ end: 'commit' });
        return result;
      } catch (e) {
        await ask({ end: 'rollback' }).catch(() => {});
        throw e;
      }
    },
  };
  for (const repo of repos)
    tx[repo] = new Proxy(
      {},
      {
        // `then` is asked by `await`: a repository is not a promise.
        get: (_, method) =>
          typeof method === 'string' && method !== 'then'
            ? (...args: unknown[]) => ask({ call: { repo, method, args } })
            : undefined,
      },
    );
  return tx as unknown as Store;
}
