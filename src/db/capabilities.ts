// What only one engine can do, named (src/db/contract.ts `Store.capabilities`): each an interface
// of its own, never the engine's handle.
import type { CompetitionScores, Stage } from '../scoring/types.js';
import type { WriteEvent } from './events.js';

export interface SavedScores {
  competitionId: string;
  /** The stage set scored. */
  stages: Stage[];
  scores: CompetitionScores;
}

/** Scores saved at a graceful shutdown, read back at the next start (src/db/savedScores.ts). */
export interface SavedScoresRepo {
  /**
   * Saves the scores `collect` hands out, which the caller vouches reflect every write event told
   * to the store's listeners. `collect` is called once, in the same turn the engine reads what it
   * records with them, so no event told in between can make the two disagree. Answers how many.
   */
  save(code: string, collect: () => SavedScores[]): Promise<number>;
  /** A competition's saved scores of this scoring code if they are still current; read on its first score read. */
  load(code: string, competitionId: string): Promise<SavedScores | undefined>;
}

/** A consistent copy of the database while it serves (SQLite's backup API). */
export interface OnlineBackup {
  /** Copies the database to the new file `path`, `pagesPerStep` pages at a time (the event loop runs between). */
  copyTo(path: string, pagesPerStep: number): Promise<void>;
}

/** A database file the import worker can commit to on a connection of its own (SQLite on a file). */
export interface WorkerConnection {
  /** The file the worker opens. */
  readonly database: string;
  /** Tells this store's listeners what the worker's transaction wrote, as if this connection had. */
  tell(event: WriteEvent): void;
  /**
   * Throws a 503 `storage-moved` when the database's files are no longer the ones this store opened
   * (deleted, moved or replaced): the worker, opening the path, would write into others; a 503
   * `storage-full` while the log could not be checkpointed into the disk's room (src/db/sqlite/walGuard.ts).
   */
  checkWritable(): void;
}

/** Catching up with writes other processes acknowledged (PostgreSQL, shared by several processes). */
export interface Freshness {
  /** Once it resolves, `listeners` have been told of every write acknowledged before the call. */
  sync(competitionId: string): Promise<void>;
}

/** PostgreSQL's connections, as /metrics shows them (src/plugins/serviceMetrics.ts). */
export interface PostgresHealth {
  /** The pool: its cap, connections open, of them idle, and requests waiting for one. */
  pool(): { max: number; total: number; idle: number; waiting: number };
  /** Whether the notifier (LISTEN) is listening now, and how often it listened again after a loss. */
  notifier(): { listening: boolean; reconnects: number };
  /** Connections lost since the start, by connection: the pool's, the notifier's, the version reads'. */
  lost(): { pool: number; notifier: number; versions: number };
}

export interface StoreCapabilities {
  readonly postgres?: PostgresHealth;
  readonly onlineBackup?: OnlineBackup;
  readonly workerConnection?: WorkerConnection;
  /** Absent where one process holds the database, whose own writes are told as they commit. */
  readonly freshness?: Freshness;
  /** SQLite on a file: the size of its write-ahead log, bytes (/metrics). */
  readonly walBytes?: () => number;
  /** On PostgreSQL only where the process keeps count of the versions it was told (src/db/pg/open.ts). */
  readonly savedScores?: SavedScoresRepo;
}
