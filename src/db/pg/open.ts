// PostgreSQL as a server's storage, shared with other server processes. Each process keeps its
// own in-memory state (the scoring input, scores, response bodies), driven by the write events
// its store tells its listeners. Its own writes tell exact events as they commit; another
// process's writes reach it as a version change of their competition, told to the listeners as
// `peer` (anything of it may have changed; the pairs that did are read by their stamps,
// src/db/pg/scoringInput.ts):
// - early, by NOTIFY (src/db/pg/notifier.ts), sent by every write transaction as it commits;
// - for certain, by `capabilities.freshness.sync(competitionId)` before each score read: one small read of every
//   competition's version, shared by the reads that arrive together, on a connection of its own (src/db/pg/freshness.ts). So
//   a read that follows an acknowledged write on any process reflects it, notification or not.
// Once the notifier listens, first or after a reconnect (notifications may have been lost), one
// version read tells every competition whose version moved meanwhile, at once.
// The versions told are also what scores saved at shutdown stand for (src/db/pg/savedScores.ts).
import pg from 'pg';
import { databaseUnavailable, DomainError } from '../../errors.js';
import { applicationName } from '../applicationName.js';
import type { Store } from '../contract.js';
import { openPostgres, POSTGRES_DEFAULTS, type PgLogger, type PostgresOptions } from './client.js';
import { isUnavailable } from './unavailable.js';
import { createFreshness } from './freshness.js';
import { startNotifier } from './notifier.js';
import { pgSavedScoresRepo } from './savedScores.js';
import { createPgStore } from './store.js';

export interface PostgresStoreOptions extends PostgresOptions {
  logger?: PgLogger;
}

export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  /** Connections lost since the start (/metrics). */
  const lost = { pool: 0, notifier: 0, versions: 0 };
  const pool = await openPostgres(url, { ...options, onLost: () => void lost.pool++ });
  /** Per competition, the version this process's listeners have been told up to. */
  const known = new Map<string, number>();
  /** Versions this process is committing: their notifications (and version reads) are its own. */
  const committing = new Set<string>();
  const key = (competitionId: string, version: number) => `${competitionId}\u0000${version}`;

  function tell(competitionId: string, kind: 'rebuild' | 'peer'): void {
    // Called only once everything below exists (after a commit, a notification or a read).
    for (const listener of pgStore.listeners) listener({ competitionId, kind });
  }
  /** Nothing is known of what changed, or whether: everything of the competition is read again. */
  const tellRebuild = (competitionId: string) => tell(competitionId, 'rebuild');

  /** A version seen in a notification or a version read: another process's write, unless it is this one's. */
  function seen(competitionId: string, version: number): void {
    if (committing.has(key(competitionId, version))) return;
    const have = known.get(competitionId);
    if (have !== undefined && have >= version) return;
    known.set(competitionId, version);
    tell(competitionId, 'peer');
  }

  const pgStore = createPgStore(pool, {
    // A write waits for its turn as long as it could wait for a connection and then for the
    // competition's row.
    turnWaitMs:
      (options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs) +
      (options.statementTimeoutMs ?? POSTGRES_DEFAULTS.statementTimeoutMs),
    onCommitting: (competitionId, version) => void committing.add(key(competitionId, version)),
    // This process's own commit: its events are told exactly; only a version skipped on the way
    // (another process wrote in between, unseen yet) needs a rebuild.
    onCommitted(competitionId, version) {
      committing.delete(key(competitionId, version));
      const have = known.get(competitionId);
      if (have === version - 1) known.set(competitionId, version);
      else seen(competitionId, version);
    },
    onAborted(competitionId, version, uncertain) {
      committing.delete(key(competitionId, version));
      // A commit whose outcome is unknown may have stored everything: read it all again.
      if (uncertain) {
        known.set(competitionId, -1);
        tellRebuild(competitionId);
      }
    },
  });
  // Made with the pool's options and bounds, under a name of its own.
  const versionsClient = () =>
    new pg.Client({ ...pool.options, application_name: applicationName('versions', options.instanceLabel) });
  const freshness = createFreshness(pool, versionsClient, (err) => {
    lost.versions++;
    options.logger?.warn({ err }, 'PostgreSQL version reads: connection lost');
  });
  /**
   * Notifications sent while the notifier was not listening (before its first LISTEN, or while it
   * was away) are lost. Once it listens, one version read sent after that catches up: every
   * competition this process knows whose version moved is told now (`peer`), not at the next
   * read of it (event streams wait on those). One that did not move keeps its caches and its
   * restored saved scores. When the read fails, everything known is read again.
   */
  let closing = false;
  let catchingUp: Promise<void> = Promise.resolve();
  function catchUpMissed(): void {
    if (closing) return;
    catchingUp = freshness.versions().then(
      (got) => {
        for (const competitionId of [...known.keys()]) seen(competitionId, got.get(competitionId) ?? 0);
      },
      () => {
        for (const competitionId of known.keys()) {
          known.set(competitionId, -1);
          tellRebuild(competitionId);
        }
      },
    );
  }
  const notifier = startNotifier(url, {
    onNotify: ({ competitionId, version }) => seen(competitionId, version),
    onReset: catchUpMissed,
    logger: options.logger,
    connectTimeoutMs: options.connectTimeoutMs,
    applicationName: applicationName('listen', options.instanceLabel),
    onLost: () => void lost.notifier++,
  });
  notifier.ready().then(catchUpMissed, () => {}); // rejected only when closed first

  /**
   * The catch-up the reads since the last version read was sent wait for. A `versions()` promise is
   * handed out only until it settles (src/db/pg/freshness.ts), so every competition asked is in
   * `asked` when `done` looks. Only those are seen: a competition no read asked keeps its
   * saved scores restorable (`restore` below).
   */
  let catchUp: { versions: Promise<ReadonlyMap<string, number>>; asked: Set<string>; done: Promise<void> } | undefined;
  function caughtUp(versions: Promise<ReadonlyMap<string, number>>): NonNullable<typeof catchUp> {
    const asked = new Set<string>();
    const done = versions.then(
      (got) => {
        for (const competitionId of asked) seen(competitionId, got.get(competitionId) ?? 0);
      },
      (e: unknown) => {
        throw asDomainError(e);
      },
    );
    return { versions, asked, done };
  }

  const store: Store = {
    ...pgStore,
    capabilities: {
      postgres: {
        pool: () => ({
          max: pool.options.max,
          total: pool.totalCount,
          idle: pool.idleCount,
          waiting: pool.waitingCount,
        }),
        notifier: () => ({ listening: notifier.connected(), reconnects: notifier.reconnects() }),
        lost: () => ({ ...lost }),
      },
      savedScores: pgSavedScoresRepo(pool, {
        told: (competitionId) => known.get(competitionId),
        restore(competitionId, version) {
          if (known.has(competitionId)) return false;
          known.set(competitionId, version);
          return true;
        },
      }),
      freshness: {
        // Every score read waits on this: the reads that share a version read share one promise,
        // settled once the versions of the competitions they asked for are seen.
        sync(competitionId) {
          const versions = freshness.versions();
          if (versions !== catchUp?.versions) catchUp = caughtUp(versions);
          catchUp.asked.add(competitionId);
          return catchUp.done;
        },
      },
    },
    async close() {
      closing = true;
      // Side by side: each goodbye waits up to a second on a network gone silent (./client.ts).
      await Promise.all([
        notifier.close(),
        // Its version read must not open a connection after the one below closes.
        catchingUp.then(() => freshness.close()),
      ]);
      await pgStore.close();
    },
  };
  return store;
}

/** A database that does not answer is a 503 the client may retry; anything else stays as it is. */
export function asDomainError(e: unknown): unknown {
  return e instanceof DomainError || !isUnavailable(e) ? e : databaseUnavailable(e);
}
