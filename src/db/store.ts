// The one storage interface the services see, whichever engine is behind it: the embedded SQLite
// file (src/db/sqlite/store.ts, the default) or PostgreSQL (src/db/pg/store.ts, DATABASE_URL).
//
// Every repository method answers a promise. The SQLite repositories underneath are synchronous
// (src/db/*.ts, better-sqlite3) and describe the contract: each method of the PostgreSQL store
// takes the same arguments and answers the same values. Generators become async iterables.
//
// Writes that must be atomic run in `transaction(fn)`, and everything inside uses the `tx` store
// it is given, never the outer one. Write events (src/db/events.ts) are told to `listeners` after
// the transaction commits, in the order the writes made them; a transaction that rolls back tells
// nothing.
import type { Db } from './client.js';
import type { WriteListener } from './events.js';
import type { Repos } from './repos.js';
import type { SavedScoresRepo } from './savedScores.js';

type AsyncMethod<F> = F extends (...args: infer A) => Generator<infer Y, unknown, unknown>
  ? (...args: A) => AsyncIterable<Y>
  : F extends (...args: infer A) => infer R
    ? (...args: A) => Promise<R>
    : never;

/** A repository whose methods answer promises. */
export type AsyncRepo<R> = { [K in keyof R]: AsyncMethod<R[K]> };

type RepoNames =
  | 'competitions'
  | 'tasks'
  | 'runs'
  | 'miners'
  | 'validators'
  | 'scoringInput'
  | 'nonces'
  | 'audit'
  | 'snapshots'
  | 'exports'
  | 'metagraphs'
  | 'judges'
  | 'aggregates';

export type Engine = 'sqlite' | 'postgres';

/** What a transaction is about. PostgreSQL serializes the transactions of one competition. */
export interface TxScope {
  /** The competition whose data the transaction writes (its runs, tasks, settings or snapshots). */
  competitionId?: string;
}

export type StoreRepos = { [K in RepoNames]: AsyncRepo<Repos[K]> };

export interface Store extends StoreRepos {
  readonly engine: Engine;
  /** Runs `fn` in one transaction: all of its writes commit together, or none. */
  transaction<T>(fn: (tx: Store) => Promise<T>, scope?: TxScope): Promise<T>;
  /** Told every committed write of this process (and, on PostgreSQL, of every other process). */
  readonly listeners: Set<WriteListener>;
  /**
   * Catches up with the competition's writes acknowledged by other processes: once it resolves,
   * `listeners` have been told of every write acknowledged before the call. Absent where one
   * process holds the database (SQLite), whose own writes are told as they commit.
   */
  sync?(competitionId: string): Promise<void>;
  /**
   * Scores saved at the last graceful shutdown (src/db/savedScores.ts). On PostgreSQL only where
   * the process keeps count of the versions it was told (src/db/pg/open.ts), which say what the
   * scores stand for.
   */
  readonly savedScores?: AsyncRepo<SavedScoresRepo>;
  /** True when the database answers and every migration is applied. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * The SQLite connection, on SQLite only: the engine-specific features that need the file itself
   * (an import committing on its own connection, online backups).
   */
  readonly sqlite?: Db;
}
