// The Store (src/db/contract.ts) over PostgreSQL: the repositories of src/db/pg/, each answering what
// its SQLite twin in src/db/*.ts answers (test/db/pgStore/ holds them together).
//
// A transaction takes a client of the pool. Scoped to a competition, it first bumps the
// competition's row in competition_versions: the row lock makes the competition's writers take
// turns, so within a competition the run sequence order is the commit order (a snapshot at
// sequence S never later finds a run <= S it did not see; docs/POSTGRES.md "For the port"), and
// the notification it queues (delivered at commit, dropped on rollback) tells other processes
// that the competition changed. Write events are kept until COMMIT and told after it, in order.
//
// A transaction waits for nothing but its own statements while it holds that row: the writers of
// one competition take their turns in this process before they take a connection (./turns.ts), so
// those queued on the row never fill the pool. A statement that fails rolls its transaction back
// at once; a connection that fails is dropped, and the request fails with it (a 503).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { WriteEvent, WriteListener } from '../events.js';
import type { Store, TxScope } from '../contract.js';
import { ServiceUnavailable } from '../../errors.js';
import { isUnavailable } from './unavailable.js';
import { POSTGRES_DEFAULTS } from './client.js';
import { createTurns } from './turns.js';
import { PG_MIGRATIONS_FOLDER } from './migrate.js';
import { mapPgError, PG_TYPES, runQuery, type PgContext, type QueryOptions } from './context.js';
import { pgAuditRepo } from './audit.js';
import { rebuildAggregates } from './aggregates.js';
import { stampsSql } from './stamps.js';
import { pgCompetitionsRepo } from './competitions.js';
import { pgExportsRepo } from './exports.js';
import { pgMinersRepo } from './miners.js';
import { pgNoncesRepo } from './nonces.js';
import { pgRunsRepo } from './runs.js';
import { createScoringMirrors, pgScoringInputRepo, type ScoringMirrors } from './scoringInput.js';
import { pgSnapshotsRepo } from './snapshots.js';
import { pgMetagraphsRepo } from './metagraphs.js';
import { pgJudgesRepo } from './judges.js';
import { pgTasksRepo } from './tasks.js';
import { pgValidatorsRepo } from './validators.js';
import type { TokenWeights } from '../../scoring/types.js';

/** The channel other processes LISTEN on; the payload is {"competitionId", "version"}. */
export const WRITES_CHANNEL = 'swe_scoring_writes';

/**
 * Bumps the competition's version (taking its row lock until the transaction ends) and queues the
 * notification. The span of versions whose writes stamp their pairs (schema.ts, competition_versions)
 * goes on through this one, or starts at it when the version before was written by a server that
 * does not stamp.
 */
const BUMP = `WITH v AS (
    INSERT INTO competition_versions AS c (competition_id, version, stamped_from, stamped_through) VALUES ($1, 1, 1, 1)
    ON CONFLICT (competition_id) DO UPDATE SET version = c.version + 1,
      stamped_from = CASE WHEN c.stamped_through = c.version THEN c.stamped_from ELSE c.version + 1 END,
      stamped_through = c.version + 1
    RETURNING version)
  SELECT v.version, pg_notify('${WRITES_CHANNEL}', json_build_object('competitionId', $1::text, 'version', v.version)::text)
  FROM v`;

interface TxState {
  client: pg.PoolClient;
  events: WriteEvent[];
  /** Competitions whose version this transaction bumped (and whose row it holds locked), with the new version. */
  bumped: Map<string, number>;
  savepoints: number;
}

let migrationCount: number | undefined;
function expectedMigrations(): number {
  migrationCount ??= (
    JSON.parse(readFileSync(`${PG_MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as { entries: unknown[] }
  ).entries.length;
  return migrationCount;
}

/**
 * What a transaction does to each competition version it bumped, told to the process's
 * bookkeeping (src/db/pg/open.ts): its own commits' notifications must not count as another
 * process's writes.
 */
export interface PgStoreOptions {
  /** Just before COMMIT is sent: from here on a notification of this version may arrive. */
  onCommitting?(competitionId: string, version: number): void;
  /** After the commit, before the transaction's events are told. */
  onCommitted?(competitionId: string, version: number): void;
  /**
   * The version will not be committed by this transaction (told before ROLLBACK frees the row, so
   * before another process can commit the same number), or, `uncertain`, COMMIT failed and the
   * outcome is unknown.
   */
  onAborted?(competitionId: string, version: number, uncertain: boolean): void;
  /** The longest a write waits for its turn on its competition (default: the default connect and statement timeouts). */
  turnWaitMs?: number;
}

/**
 * Whether the connection itself failed (or still runs the statement that failed): it cannot
 * take a ROLLBACK and goes. A statement the server refused with an error of its own (a
 * constraint, a statement timeout) leaves a connection that can.
 */
function connectionFailed(failure: unknown, client: pg.PoolClient): boolean {
  const state = client as unknown as { _queryable?: boolean; readyForQuery?: boolean };
  if (state._queryable === false) return true;
  // A statement's own failure arrives as the domain error runQuery made of it: judge the driver's.
  const err = failure instanceof ServiceUnavailable && failure.cause !== undefined ? failure.cause : failure;
  const code = (err as { code?: unknown }).code;
  const sessionEnded = typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P0'));
  // The server's own error answer ends its statement on a live session, even where its
  // ReadyForQuery has not been read yet: the ROLLBACK queues behind it.
  if (err instanceof pg.DatabaseError) return sessionEnded;
  if (state.readyForQuery === false) return true;
  return isUnavailable(err);
}

export function createPgStore(pool: pg.Pool, options: PgStoreOptions = {}): Store {
  const listeners = new Set<WriteListener>();
  const mirrors = createScoringMirrors(pool, listeners);
  const turns = createTurns(
    options.turnWaitMs ?? POSTGRES_DEFAULTS.connectTimeoutMs + POSTGRES_DEFAULTS.statementTimeoutMs,
  );

  async function bump(state: TxState, competitionId: string): Promise<void> {
    if (state.bumped.has(competitionId)) return;
    const { rows } = await runQuery(state.client, BUMP, [competitionId], { name: 'pg_store_bump' });
    state.bumped.set(competitionId, Number((rows[0] as { version: number | string }).version));
  }

  /**
   * BEGIN and the bump in one message (the simple protocol, the id as a quoted literal): one round
   * trip, one turn of the event loop, where the writer holds its competition's turn.
   */
  async function beginWithBump(state: TxState, competitionId: string): Promise<void> {
    const text = `BEGIN; ${BUMP.replaceAll('$1', state.client.escapeLiteral(competitionId))}`;
    let results: pg.QueryResult[];
    try {
      results = (await state.client.query({ text, types: PG_TYPES })) as unknown as pg.QueryResult[];
    } catch (err) {
      throw mapPgError(err);
    }
    state.bumped.set(competitionId, Number((results[1]!.rows[0] as { version: number | string }).version));
  }

  /** The context of statements inside the transaction `state`. */
  function txContext(state: TxState): PgContext {
    const ctx: PgContext = {
      inTransaction: true,
      query: async <R>(text: string, values?: unknown[], options?: QueryOptions) =>
        (await runQuery(state.client, text, values, options)).rows as R[],
      execute: async (text, values, options) => (await runQuery(state.client, text, values, options)).rowCount ?? 0,
      emit: (event) => void state.events.push(event),
      async write(competitionId, fn) {
        if (competitionId !== undefined) await bump(state, competitionId);
        return fn(ctx);
      },
    };
    return ctx;
  }

  /**
   * BEGIN, fn, COMMIT, then the events told; ROLLBACK at once on any error, and nothing told.
   * Scoped to a competition, it first waits for its turn among the competition's writers.
   */
  async function inTransaction<T>(fn: (ctx: PgContext, state: TxState) => Promise<T>, scope?: TxScope): Promise<T> {
    const endTurn = scope?.competitionId === undefined ? undefined : await turns.take(scope.competitionId);
    try {
      return await transactionOnClient(fn, scope);
    } finally {
      endTurn?.();
    }
  }

  async function transactionOnClient<T>(
    fn: (ctx: PgContext, state: TxState) => Promise<T>,
    scope?: TxScope,
  ): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => {
      throw mapPgError(err);
    });
    let broken = false;
    try {
      const state: TxState = { client, events: [], bumped: new Map(), savepoints: 0 };
      let result: T;
      let committing = false;
      try {
        if (scope?.competitionId === undefined) await client.query('BEGIN');
        else await beginWithBump(state, scope.competitionId);
        result = await fn(txContext(state), state);
        const stamps = stampsSql(state.bumped, state.events, (v) => client.escapeLiteral(v));
        committing = true;
        for (const [competitionId, version] of state.bumped) options.onCommitting?.(competitionId, version);
        // A stamp that fails leaves the transaction aborted, and the COMMIT after it is not run: the
        // outcome counts as uncertain (onAborted), and this process reads the competition again.
        await client.query(stamps ? `${stamps}; COMMIT` : 'COMMIT');
      } catch (err) {
        for (const [competitionId, version] of state.bumped) options.onAborted?.(competitionId, version, committing);
        // A failed connection goes, not back to the pool: the server rolls back what it held as
        // the session ends. Any other failure rolls back now, on the same connection.
        if (connectionFailed(err, client)) broken = true;
        else await client.query('ROLLBACK').catch(() => (broken = true));
        throw mapPgError(err);
      }
      for (const [competitionId, version] of state.bumped) options.onCommitted?.(competitionId, version);
      for (const event of state.events) for (const listener of listeners) listener(event);
      return result;
    } finally {
      client.release(broken);
    }
  }

  const root: PgContext = {
    inTransaction: false,
    query: async <R>(text: string, values?: unknown[], options?: QueryOptions) =>
      (await runQuery(pool, text, values, options)).rows as R[],
    execute: async (text, values, options) => (await runQuery(pool, text, values, options)).rowCount ?? 0,
    emit() {
      throw new Error('a write event outside a transaction: the write should have gone through ctx.write');
    },
    write: (competitionId, fn) => inTransaction((ctx) => fn(ctx), { competitionId }),
  };

  function repos(ctx: PgContext, scoring: ScoringMirrors) {
    return {
      competitions: pgCompetitionsRepo(ctx),
      tasks: pgTasksRepo(ctx),
      runs: pgRunsRepo(ctx),
      miners: pgMinersRepo(ctx),
      validators: pgValidatorsRepo(ctx),
      scoringInput: pgScoringInputRepo(ctx, scoring),
      nonces: pgNoncesRepo(ctx),
      audit: pgAuditRepo(ctx),
      snapshots: pgSnapshotsRepo(ctx),
      exports: pgExportsRepo(ctx),
      metagraphs: pgMetagraphsRepo(ctx),
      judges: pgJudgesRepo(ctx, scoring.pool),
      aggregates: {
        /** Recomputes a competition's aggregates from its counted runs (src/db/aggregates.ts). */
        rebuild: (competitionId: string, w: TokenWeights) =>
          ctx.write(competitionId, (c) => rebuildAggregates(c, competitionId, w)),
      },
    };
  }

  /** The store a transaction's function is given: its client, nested transactions as savepoints. */
  function txStore(ctx: PgContext, state: TxState): Store {
    const store: Store = {
      ...repos(ctx, mirrors),
      engine: 'postgres',
      listeners,
      capabilities: {},
      async transaction(fn, scope) {
        const name = `s${++state.savepoints}`;
        const events = state.events.length;
        const bumped = new Map(state.bumped);
        await state.client.query(`SAVEPOINT ${name}`);
        try {
          if (scope?.competitionId !== undefined) await bump(state, scope.competitionId);
          const result = await fn(store);
          await state.client.query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (err) {
          // A broken connection fails here too; the outer transaction then gives up the client.
          await state.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          state.events.length = events;
          state.bumped = bumped;
          throw mapPgError(err);
        }
      },
      ready: () => ready(),
      close: () => Promise.reject(new Error('close() inside a transaction')),
    };
    return store;
  }

  async function ready(): Promise<boolean> {
    try {
      const [row] = await root.query<{ n: number }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
      return row!.n >= expectedMigrations();
    } catch {
      return false;
    }
  }

  return {
    ...repos(root, mirrors),
    engine: 'postgres',
    listeners,
    capabilities: {},
    transaction: (fn, scope) => inTransaction((ctx, state) => fn(txStore(ctx, state)), scope),
    ready,
    close: () => pool.end(),
  };
}
