// The Store (src/db/contract.ts) over the embedded SQLite file: the synchronous repositories of
// src/db/*.ts behind promises, their storage failures (a full disk, a read-only or locked file)
// thrown as domain errors (./errors.ts). Its capabilities: online backups, and on a file (not in
// memory) a connection of its own for the import worker.
//
// One connection serves the whole process, so a transaction is the connection's state, not a
// handle: while one is open, every other statement on the connection would run inside it and see
// its uncommitted writes. So transactions take turns, and a read outside the open transaction
// waits for it to end. The repositories never wait for anything but the database, so a
// transaction's awaits all resolve at once and the wait is short; a transaction must not await
// anything else (a worker, the network), which would stall every read for as long.
import { statSync } from 'node:fs';
import type { Db } from '../client.js';
import { storageMoved } from '../../errors.js';
import { isReady } from '../client.js';
import { emitWrite, writeListeners, type WriteEvent, type WriteListener } from '../events.js';
import { createRepos } from '../repos.js';
import { sqliteOnlineBackup } from './backup.js';
import { transactionElsewhere } from './elsewhere.js';
import { mapSqliteError } from './errors.js';
import { walGuard } from './walGuard.js';
import { savedScoresRepo } from '../savedScores.js';
import type { StoreCapabilities } from '../capabilities.js';
import type { Store, StoreRepos } from '../contract.js';

type AsyncMethod<F> = F extends (...args: infer A) => Generator<infer Y, unknown, unknown>
  ? (...args: A) => AsyncIterable<Y>
  : F extends (...args: infer A) => infer R
    ? (...args: A) => Promise<R>
    : never;

/** A synchronous repository's methods as promises (generators as async iterables). */
type AsyncRepo<R> = { [K in keyof R]: AsyncMethod<R[K]> };
type StoreReposSync = ReturnType<typeof createRepos>;

export function createSqliteStore(db: Db): Store {
  const repos = createRepos(db);
  const c = db.$client;
  const listeners = new Set<WriteListener>();
  /** The open transaction's events, told after it commits; null when none is open. */
  let pending: WriteEvent[] | null = null;
  /** Settles when the open transaction ends; null when none is open. */
  let open: Promise<void> | null = null;
  /** Settles when the transaction running on a worker's connection ends (./elsewhere.ts); null when none runs. */
  let away: Promise<void> | null = null;

  writeListeners(db).add((event) => {
    if (pending) pending.push(event);
    else for (const listener of listeners) listener(event);
  });

  const path = c.memory ? null : c.name;
  // The files as opened: the database, its write-ahead log and shared memory. The database deleted,
  // moved or replaced while the server runs, the connection would still write into the old file and
  // acknowledge it, and the next start would open a new, empty one at the path. The -wal or -shm
  // deleted, it would write its commits into a log no later start reads, and another connection
  // (an import's worker) would make a new pair beside it: every write since the last checkpoint
  // lost, even at a graceful stop. Writes are refused instead, and the server says it is not ready.
  const files = path === null ? [] : [path, `${path}-wal`, `${path}-shm`].map((name) => ({ name, id: fileId(name) }));
  /** The first of the files that is not the one opened, or null. */
  const movedFile = (): string | null => {
    for (const f of files) {
      const now = fileId(f.name);
      // A -wal or -shm the connection had not made yet when the store was created is taken as it comes.
      if (f.id === null && f.name !== path) f.id = now;
      else if (now !== f.id) return f.name;
    }
    return null;
  };
  const fileMoved = () => movedFile() !== null;
  const wal = path === null ? null : walGuard(c, path);
  /** Before a write: the files are the ones opened, and the log leaves room to checkpoint it (./walGuard.ts). */
  const checkWritable = () =>
    mapped(() => {
      const moved = movedFile();
      if (moved !== null) throw storageMoved(moved);
      wal?.check();
    });

  async function turn(): Promise<void> {
    while (open) await open;
  }

  /** A repository's methods as promises; `outside` ones first wait for an open transaction to end. */
  function asyncRepo<R extends object>(repo: R, outside: boolean): AsyncRepo<R> {
    const out: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(repo) as [string, (...args: unknown[]) => unknown][]) {
      if (isGeneratorFunction(fn)) {
        out[name] = async function* (...args: unknown[]) {
          if (outside) await turn();
          const it = mapped(() => fn.apply(repo, args) as Iterator<unknown>);
          try {
            for (;;) {
              // Each step reads a page at most; between steps another transaction may have run.
              if (outside) await turn();
              const step = mapped(() => it.next());
              if (step.done) return;
              yield step.value;
            }
          } finally {
            // A reader that stops early ends the repository's generator too (its `finally` runs).
            it.return?.();
          }
        };
      } else {
        out[name] = outside
          ? async (...args: unknown[]) => {
              if (open) await turn();
              return mapped(() => fn.apply(repo, args));
            }
          : async (...args: unknown[]) => mapped(() => fn.apply(repo, args));
      }
    }
    return out as AsyncRepo<R>;
  }

  /**
   * The runs repository with insertNew's check (contract.ts): SQLite inserts a batch's new runs
   * first, and the rollback of a batch the check refuses returns their sequence numbers.
   */
  function withCheck(runs: AsyncRepo<StoreReposSync['runs']>): StoreRepos['runs'] {
    return {
      ...runs,
      async insertNew(records, w, excluded, judge, check) {
        const stored = await runs.insertNew(records, w, excluded, judge);
        if (stored.size > 0 && check) await check(stored);
        return stored;
      },
    };
  }

  function reposOf(outside: boolean): StoreRepos {
    return {
      competitions: asyncRepo(repos.competitions, outside),
      tasks: asyncRepo(repos.tasks, outside),
      runs: withCheck(asyncRepo(repos.runs, outside)),
      miners: asyncRepo(repos.miners, outside),
      validators: asyncRepo(repos.validators, outside),
      scoringInput: asyncRepo(repos.scoringInput, outside),
      nonces: asyncRepo(repos.nonces, outside),
      audit: asyncRepo(repos.audit, outside),
      snapshots: asyncRepo(repos.snapshots, outside),
      exports: asyncRepo(repos.exports, outside),
      metagraphs: asyncRepo(repos.metagraphs, outside),
      judges: asyncRepo(repos.judges, outside),
      aggregates: asyncRepo(repos.aggregates, outside),
    };
  }

  const tell = (event: WriteEvent) => emitWrite(db, event);
  const repoNames = Object.keys(reposOf(false)) as (keyof StoreRepos)[];
  const engineOnly: StoreCapabilities = {
    onlineBackup: sqliteOnlineBackup(c),
    // An in-memory database has no file for another connection.
    workerConnection: c.memory ? undefined : { database: c.name, tell, checkWritable },
    walBytes: wal?.bytes,
  };

  let savepoints = 0;
  /** The store a transaction's function is given: no waiting, nested transactions as savepoints. */
  const inside: Store = {
    ...reposOf(false),
    engine: 'sqlite',
    listeners,
    capabilities: engineOnly,
    async transaction(fn) {
      const name = `s${++savepoints}`;
      mapped(() => c.exec(`SAVEPOINT ${name}`));
      try {
        const result = await fn(inside);
        mapped(() => c.exec(`RELEASE ${name}`));
        return result;
      } catch (e) {
        if (c.inTransaction) c.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        throw mapSqliteError(e);
      }
    },
    ready: async () => isReady(db),
    close: async () => {
      throw new Error('close() inside a transaction');
    },
  };

  const store: Store = {
    ...reposOf(true),
    engine: 'sqlite',
    listeners,
    capabilities: { ...engineOnly, savedScores: asyncRepo(savedScoresRepo(db), true) },
    async transaction(fn, scope) {
      while (open || away) await (open ?? away);
      // Closed, this connection refuses its BEGIN below: the worker's, of its own, must not write
      // either (and a closed connection's -wal and -shm are gone: it did not lose them).
      if (!c.open) throw new TypeError('The database connection is not open');
      checkWritable();
      if (scope?.recounts && !c.memory) {
        // A recount runs on a connection of its own, so this one's reads go on meanwhile; its
        // transactions wait (BEGIN IMMEDIATE would wait in the busy handler, the event loop stopped).
        const elsewhere = transactionElsewhere(c.name, repoNames, fn, tell, scope.competitionId);
        const ended = (away = elsewhere.then(
          () => {},
          () => {},
        ));
        try {
          return await elsewhere;
        } finally {
          if (away === ended) away = null;
        }
      }
      let end!: () => void;
      open = new Promise((resolve) => (end = resolve));
      pending = [];
      try {
        // IMMEDIATE: the write lock is taken first, so where another connection writes to the same
        // file (an import's worker, the command line) this one waits for it (busy_timeout) instead
        // of failing on its first write.
        mapped(() => c.exec('BEGIN IMMEDIATE'));
        let result;
        try {
          result = await fn(inside);
          mapped(() => c.exec('COMMIT'));
        } catch (e) {
          // SQLite may have rolled back already (e.g. SQLITE_FULL); a second ROLLBACK would throw.
          if (c.inTransaction) c.exec('ROLLBACK');
          pending = [];
          throw mapSqliteError(e);
        }
        const told = pending;
        pending = null;
        for (const event of told) for (const listener of listeners) listener(event);
        return result;
      } finally {
        pending = null;
        open = null;
        end();
      }
    },
    ready: async () => !fileMoved() && isReady(db),
    async close() {
      // A recount on the worker's connection tells its events to this one's listeners once it commits.
      while (open || away) await (open ?? away);
      c.close();
    },
  };
  return store;
}

/** Runs `fn`, its storage failures thrown as domain errors (./errors.ts). */
function mapped<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw mapSqliteError(e);
  }
}

/** A file's identity (device and inode), or null when there is none at `name`. */
function fileId(name: string): string | null {
  const st = statSync(name, { throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}` : null;
}

function isGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor.name === 'GeneratorFunction';
}
