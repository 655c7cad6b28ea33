// The one storage contract the services see, whichever engine is behind it: the embedded SQLite
// file (src/db/sqlite/store.ts, the default) or PostgreSQL (src/db/pg/store.ts, DATABASE_URL).
// Each engine's store is typed against these interfaces; neither engine's types appear in them.
//
// Every repository method answers a promise; a long read is an async iterable. Writes that must be
// atomic run in `transaction(fn)`, and everything inside uses the `tx` store it is given, never the
// outer one. Write events (src/db/events.ts) are told to `listeners` after the transaction commits,
// in the order the writes made them; a transaction that rolls back tells nothing.
//
// A database that does not answer, or whose storage cannot take a write (SQLite's disk full, its
// file read-only or locked), reaches callers as a domain error of src/errors.ts (a 503
// ServiceUnavailable), mapped inside the store that meets it (src/db/pg/context.ts,
// src/db/sqlite/errors.ts): nothing above src/db knows an engine's errors.
//
// What only one engine can do is a capability (`store.capabilities`): an optional object with an
// interface of its own, never the engine's handle.
import type { ValidatorPairRuns } from '../scoring/agreement.js';
import type { EntryChanges } from '../scoring/scoreIncrementally.js';
import type { EntryList, MinerTaskSummary, ScoringMiner, ScoringTask, Stage, TokenWeights } from '../scoring/types.js';
import type { AuditEntry, NewAuditEntry } from './audit.js';
import type { CompetitionSettings, CompetitionUpsert } from './competitions.js';
import type { StoreCapabilities } from './capabilities.js';
import type { WriteListener } from './events.js';
import type { CriterionExportRow, RunExportRow, TaskExportRow } from './exports.js';
import type { CriterionRow, MinerRow, TaskRow, ValidatorRow, ValidatorStanding, VersionedDocument } from './rows.js';
import type { JudgeInForce } from './plan/runBatch.js';
import type { StabilityStep } from './judges.js';
import type { RunFilter, RunRecord, StoredRun } from './rows.js';
import type { InputRunRow, SigningKeyRow, SnapshotRow } from './snapshots.js';
import type { SnapshotHeadRow, SnapshotMinerRow, SnapshotWeightsRow } from './snapshotParts.js';
import type { Rubric, TaskRecord } from './tasks.js';

export type { VersionedDocument } from './rows.js';

export type Engine = 'sqlite' | 'postgres';

export interface CompetitionsRepo {
  get(id: string): Promise<CompetitionSettings | null>;
  list(): Promise<CompetitionSettings[]>;
  counts(id: string): Promise<{ tasks: number; miners: number; runs: number }>;
  /** Baseline runs and resolved runs over the tasks in the given stages, from the aggregates. */
  baselineTotals(id: string, stages: readonly Stage[]): Promise<{ runs: number; resolved: number }>;
  /** Creates or updates; fields left out keep their stored value (or the default on create). */
  upsert(id: string, input: CompetitionUpsert): Promise<{ competition: CompetitionSettings; created: boolean }>;
}

export interface TasksRepo {
  get(competitionId: string, taskId: string): Promise<TaskRow | null>;
  criteria(competitionId: string, taskId: string): Promise<CriterionRow[]>;
  list(competitionId: string): Promise<TaskRow[]>;
  /** Each task's type and rubric as run ingestion grades with; null for an unknown task. */
  rubrics(competitionId: string, taskIds: readonly string[]): Promise<Map<string, Rubric | null>>;
  criteriaCounts(competitionId: string): Promise<Map<string, number>>;
  /** Creates or updates tasks atomically (src/db/plan/tasksUpsert.ts decides which). */
  upsertMany(
    competitionId: string,
    records: TaskRecord[],
  ): Promise<{ imported: number; updated: number; unchanged: number }>;
}

export interface RunsRepo {
  /** The stored runs among the given ids. */
  existing(competitionId: string, runIds: string[]): Promise<Map<string, StoredRun>>;
  get(competitionId: string, runId: string): Promise<StoredRun | null>;
  /** Runs in sequence order (oldest first) after `after`, filtered. */
  list(competitionId: string, f: RunFilter): Promise<StoredRun[]>;
  /**
   * Inserts runs of one competition and updates every aggregate; call inside a transaction. Runs
   * of validators in `excluded`, and runs stale under `judge` (src/db/plan/runBatch.ts isStaleRun),
   * are stored but enter no aggregate.
   */
  insertMany(
    records: RunRecord[],
    w: TokenWeights,
    excluded?: ReadonlySet<string>,
    judge?: JudgeInForce | null,
  ): Promise<void>;
  /**
   * Inserts, as insertMany does, the runs whose ids are not stored yet, and answers the stored runs
   * among the others, in the order given. Call inside a transaction. `check` is given the stored
   * runs when there are any, and throws to refuse the batch (a resent id with other content): a
   * batch it refuses stores nothing and takes no number of the run sequence, so it runs before
   * PostgreSQL's insert (a sequence does not roll back); on SQLite the rollback returns them.
   */
  insertNew(
    records: RunRecord[],
    w: TokenWeights,
    excluded?: ReadonlySet<string>,
    judge?: JudgeInForce | null,
    check?: (stored: ReadonlyMap<string, StoredRun>) => Promise<void>,
  ): Promise<Map<string, StoredRun>>;
  /** Deletes one run (kept in deleted_runs for snapshot inputs) and takes it out of every aggregate. */
  delete(run: StoredRun, w: TokenWeights, excluded?: ReadonlySet<string>, judge?: JudgeInForce | null): Promise<void>;
}

export interface MinersRepo {
  get(competitionId: string, hotkey: string): Promise<MinerRow | null>;
  list(competitionId: string): Promise<MinerRow[]>;
  /** Creates or updates the miner's exclusion; returns whether it was created. */
  setExcluded(competitionId: string, hotkey: string, excluded: boolean, reason: string | null): Promise<boolean>;
}

export interface ValidatorsRepo {
  get(id: string): Promise<ValidatorRow | null>;
  /** Creates a bearer-key validator, or a signing one when `signer` is given (then no key). */
  create(
    name: string,
    signer?: { hotkey: string; publicKey: string },
  ): Promise<{ validator: ValidatorRow; apiKey: string | null }>;
  list(): Promise<ValidatorRow[]>;
  /** The validator holding this sr25519 public key (hex), revoked or not. */
  byPublicKey(publicKey: string): Promise<ValidatorRow | null>;
  /** Records a heartbeat (no audit entry, no write event); null when there is no such validator. */
  heartbeat(id: string, version: string, codeDigest: string | null): Promise<ValidatorRow | null>;
  /** Revokes a validator; false when there is no such validator. */
  revoke(id: string): Promise<boolean>;
  /** The active validator holding this bearer key, compared in constant time; null otherwise. */
  authenticate(apiKey: string): Promise<ValidatorRow | null>;
  /** Run counts per (task, miner; null for the baseline, validator) in the given stages. */
  pairRuns(competitionId: string, stages: readonly string[]): Promise<ValidatorPairRuns[]>;
  /** Every validator's recorded standing in a competition (validators never excluded have none). */
  standings(competitionId: string): Promise<ValidatorStanding[]>;
  /** Records a validator's exclusion in a competition; the standing before (null if none). */
  setExcluded(
    competitionId: string,
    validatorId: string,
    excluded: boolean,
    reason: string | null,
  ): Promise<ValidatorStanding | null>;
}

/** What scoring reads: every task and miner, and the (task, miner) summaries. */
export interface ScoringInput {
  tasks: ScoringTask[];
  miners: ScoringMiner[];
  minerTasks: EntryList<MinerTaskSummary>;
}

export interface ScoringInputRepo {
  /** Fills the competition's in-memory pairs a page at a time, yielding between pages. */
  prepare(competitionId: string, w: TokenWeights): AsyncIterable<number>;
  /** A miner's part of the scoring input: every task and miner, and of the pairs only its own. */
  minerInput(competitionId: string, hotkey: string, w: TokenWeights): Promise<ScoringInput>;
  /** The scoring input; the returned arrays are shared between reads and must not be mutated. */
  load(competitionId: string, w: TokenWeights): Promise<ScoringInput>;
  /**
   * Where the store keeps the pairs in memory and knows it: how the pair list `load` gave last
   * differs from the one it gave before (src/scoring/scoreIncrementally.ts `EntryChanges`), told once.
   */
  pairChanges?(competitionId: string): Promise<EntryChanges | undefined>;
  /** Pairs held in memory for the competition (its mirror, or the one being filled): what `release` gives back. */
  held(competitionId: string): Promise<number>;
  /** Gives back the competition's in-memory pairs; the next load reads them again. */
  release(competitionId: string): Promise<void>;
}

export interface NoncesRepo {
  /** Records the pair; false when it was already there (a replay). */
  remember(publicKey: string, uuid: string, expiresAt: number): Promise<boolean>;
  /** Deletes entries that expired before `now` (Unix ms); returns how many. */
  prune(now: number): Promise<number>;
}

export interface AuditRepo {
  append(e: NewAuditEntry): Promise<void>;
  list(filter: { competitionId?: string; after?: number; limit: number }): Promise<AuditEntry[]>;
}

export interface SnapshotsRepo {
  latest(competitionId: string): Promise<SnapshotRow | null>;
  get(competitionId: string, seq: number): Promise<SnapshotRow | null>;
  /** The snapshots after seq `after`, oldest first, as their summaries: the documents are not read. */
  heads(competitionId: string, after: number, limit: number): Promise<SnapshotHeadRow[]>;
  /** The same page, as the weights history needs it (no document read). */
  weightsHistory(competitionId: string, after: number, limit: number): Promise<SnapshotWeightsRow[]>;
  /** The same page, with the miner's leaderboard entry in each (no document read). */
  minerHistory(competitionId: string, hotkey: string, after: number, limit: number): Promise<SnapshotMinerRow[]>;
  insert(row: SnapshotRow): Promise<undefined>;
  /** Each competition's latest snapshot seq; competitions without one are left out. */
  latestSeqs(): Promise<{ competitionId: string; seq: number }[]>;
  /** The snapshot-signing keys in the order they came into force. */
  signingKeys(): Promise<SigningKeyRow[]>;
  /** Records `key` as the one in force from now; nothing when another process recorded one meanwhile. */
  recordSigningKey(key: Pick<SigningKeyRow, 'fingerprint' | 'publicKey' | 'starts'>): Promise<undefined>;
  /** The run sequence now: every run stored so far has seq <= this. */
  runSeq(): Promise<number>;
  /**
   * The run sequence number the competition's last deletion of a run took (0 before any): no run
   * of it was deleted since a snapshot at run sequence S while this is at most S.
   */
  lastDeletedSeq(competitionId: string): Promise<number>;
  /**
   * How many runs a snapshot taken now holds (those that count), summed from the aggregates: the
   * number the scoring input's entries add up to (src/services/snapshotInput.ts countedRuns).
   */
  countedRuns(competitionId: string): Promise<number>;
  /**
   * The runs of a competition as they stood at run sequence `upTo`, in run id order, minus those of
   * the excluded validators and those stale under the judge configuration `judge` (SPEC 12).
   * `undigestedQna`: keep the QnA runs that name no configuration, as snapshots taken before they
   * were stale did (src/services/snapshotInput.ts).
   */
  inputRuns(
    competitionId: string,
    upTo: number,
    excludedValidators: readonly string[],
    judge?: string | null,
    undigestedQna?: boolean,
  ): AsyncIterable<InputRunRow>;
  /** How many runs inputRuns yields (without `undigestedQna`). */
  inputRunCount(
    competitionId: string,
    upTo: number,
    excludedValidators: readonly string[],
    judge: string | null,
  ): Promise<number>;
}

export interface ExportsRepo {
  /** The run sequence now: every run stored so far, and every deletion, has a number <= this. */
  runSeq(): Promise<number>;
  /** Up to `limit` runs with `after < seq <= upTo`, in seq order, as the competition stood at `upTo`. */
  runPage(competitionId: string, after: number, upTo: number, limit: number): Promise<RunExportRow[]>;
  /** Up to `limit` tasks with id > `after`, in id order (byte order of the ids). */
  taskPage(competitionId: string, after: string, limit: number): Promise<TaskExportRow[]>;
  /** The criteria of the tasks with `first <= id <= last`, by task then position. */
  criteria(competitionId: string, first: string, last: string): Promise<CriterionExportRow[]>;
}

export interface MetagraphsRepo {
  /** The metagraph in force: the one recorded last; null when none is. */
  latest(competitionId: string): Promise<VersionedDocument | null>;
  /** Records a new version, in force from now; the ones before stay. */
  record(competitionId: string, document: string, digest: string): Promise<VersionedDocument>;
}

export interface JudgesRepo {
  /** The configuration in force: the one set last; null when none is. */
  latest(competitionId: string): Promise<VersionedDocument | null>;
  /** The configuration with this digest, if the competition ever held it. */
  get(competitionId: string, digest: string): Promise<VersionedDocument | null>;
  /** Sets a new version, in force from now, and recounts the runs under it. */
  record(competitionId: string, document: string, digest: string, w: TokenWeights): Promise<VersionedDocument>;
  /**
   * The stability report's input (SPEC 12), read from one state of the competition: a first step
   * with the criteria of the tasks in `stages`, then steps with the verdicts on them of the runs
   * counted in that state, summed per (task, criterion, miner or baseline); the caller lets other
   * work run between steps. Tallies of one key may come in several steps and add up. A write made
   * while the steps are read is in none of them.
   */
  stabilityInput(competitionId: string, stages: readonly string[]): AsyncIterable<StabilityStep>;
}

export interface AggregatesRepo {
  /** Recomputes a competition's aggregates from its counted runs. */
  rebuild(competitionId: string, w: TokenWeights): Promise<void>;
}

export interface StoreRepos {
  competitions: CompetitionsRepo;
  tasks: TasksRepo;
  runs: RunsRepo;
  miners: MinersRepo;
  validators: ValidatorsRepo;
  scoringInput: ScoringInputRepo;
  nonces: NoncesRepo;
  audit: AuditRepo;
  snapshots: SnapshotsRepo;
  exports: ExportsRepo;
  metagraphs: MetagraphsRepo;
  judges: JudgesRepo;
  aggregates: AggregatesRepo;
}

/** What a transaction is about. PostgreSQL serializes the transactions of one competition. */
export interface TxScope {
  /** The competition whose data the transaction writes (its runs, tasks, settings or snapshots). */
  competitionId?: string;
  /**
   * The transaction recounts a whole competition (src/db/aggregates.ts). Where the store has a
   * worker connection (SQLite on a file: src/db/sqlite/elsewhere.ts), it runs there, and the caller
   * holds the write gate exclusively (src/services/writeGate.ts); elsewhere it runs as any other.
   * Its function may then call the repositories' methods whose arguments and results can be cloned
   * (not the generators, not `insertNew`'s `check`), and finds no capabilities on its store.
   */
  recounts?: boolean;
}

export interface Store extends StoreRepos {
  readonly engine: Engine;
  readonly capabilities: StoreCapabilities;
  /** Runs `fn` in one transaction: all of its writes commit together, or none. */
  transaction<T>(fn: (tx: Store) => Promise<T>, scope?: TxScope): Promise<T>;
  /** Told every committed write of this process (and, on PostgreSQL, of every other process). */
  readonly listeners: Set<WriteListener>;
  /** True when the database answers and every migration is applied. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
