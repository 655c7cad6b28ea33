// What the services and the storage hold and give up, for the operator (docs/OPERATING.md,
// "Watching it"): on /metrics with the rest, read when scraped, and logged where a line helps act.
// - The memory budget (SCORING_MEMORY_BUDGET_MB): what the competitions' in-memory state holds
//   against it, and each release, which turns that competition's next detailed read into a cold one.
// - SQLite's write-ahead log, which another process's long read keeps from being checkpointed.
// - PostgreSQL's pool (connections, requests waiting for one) and the connections lost and back.
// - The validators: how many hold a key, and of them how many went silent (SCORING_VALIDATOR_SILENT_AFTER_MS).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Store } from '../db/contract.js';
import type { PostgresHealth } from '../db/capabilities.js';
import { onWorkerStop } from '../workerThread.js';

/** PostgreSQL's pool and connections, read when scraped. */
function postgresMetrics(pg: PostgresHealth, registers: Registry[]): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge(
    'scoring_pg_pool_max_connections',
    'DATABASE_POOL_SIZE: pooled PostgreSQL connections at most.',
    () => pg.pool().max,
  );
  gauge('scoring_pg_pool_connections', 'Pooled PostgreSQL connections open, busy or idle.', () => pg.pool().total);
  gauge('scoring_pg_pool_idle_connections', 'Pooled PostgreSQL connections open and idle.', () => pg.pool().idle);
  gauge(
    'scoring_pg_pool_waiting_requests',
    'Queries waiting for a pooled connection (all busy); past DATABASE_TIMEOUT_MS each is a 503.',
    () => pg.pool().waiting,
  );
  gauge(
    'scoring_pg_notifier_listening',
    "1 while the notifier's LISTEN connection listens for other replicas' writes; 0 while it reconnects.",
    () => (pg.notifier().listening ? 1 : 0),
  );
  new Counter({
    name: 'scoring_pg_notifier_reconnects_total',
    help: 'Times the notifier listened again after losing its connection.',
    registers,
    collect() {
      this.reset();
      this.inc(pg.notifier().reconnects);
    },
  });
  new Counter({
    name: 'scoring_pg_connections_lost_total',
    help: "PostgreSQL connections lost while open, by connection: pool, notifier (LISTEN), versions (the score reads' version check).",
    labelNames: ['connection'] as const,
    registers,
    collect() {
      this.reset();
      for (const [connection, n] of Object.entries(pg.lost())) this.inc({ connection }, n);
    },
  });
}

/** How often the validators' liveness is read for /metrics. */
const LIVENESS_REFRESH_MS = 5000;

/**
 * The validators' liveness, read from the database every few seconds, not when scraped: a scrape
 * then neither waits on a database gone silent nor shows its own query among the pool's waiters. A
 * read that fails (the database away) keeps the last values; the 503 counters tell the outage.
 */
function validatorMetrics(app: FastifyInstance, registers: Registry[]): void {
  let counts = { active: 0, silent: 0 };
  // One read at a time: on a silent PostgreSQL a read may wait up to twice DATABASE_TIMEOUT_MS plus
  // 2 s, longer than the period, and reads started beside it would queue for the pool's connections.
  let reading = false;
  const refresh = () => {
    if (reading) return;
    reading = true;
    app.services.validators
      .list()
      .then(
        (all) => {
          const active = all.filter((v) => v.revokedAt === null);
          counts = { active: active.length, silent: active.filter((v) => v.silent).length };
        },
        () => {},
      )
      .finally(() => (reading = false));
  };
  refresh();
  const timer = setInterval(refresh, LIVENESS_REFRESH_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  new Gauge({
    name: 'scoring_validators_active',
    help: 'Validators holding a key (not revoked); read every few seconds.',
    registers,
    collect() {
      this.set(counts.active);
    },
  });
  new Gauge({
    name: 'scoring_validators_silent',
    help: 'Validators not revoked whose last heartbeat is older than SCORING_VALIDATOR_SILENT_AFTER_MS, or that never sent one; read every few seconds.',
    registers,
    collect() {
      this.set(counts.silent);
    },
  });
}

export const serviceMetricsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: Store }) => {
    const registers = [app.metrics.registry];
    const memory = app.services.scores.memory;
    new Gauge({
      name: 'scoring_competition_state_bytes',
      help: "Estimated bytes of the competitions' in-memory scoring state (pairs, input, coverage, response bodies).",
      registers,
      async collect() {
        this.set(await memory.held());
      },
    });
    new Gauge({
      name: 'scoring_competition_state_budget_bytes',
      help: 'SCORING_MEMORY_BUDGET_MB in bytes: beyond it the least recently used competitions give their state back.',
      registers,
      collect() {
        this.set(memory.budgetBytes);
      },
    });
    const releases = new Counter({
      name: 'scoring_competition_releases_total',
      help: 'Competitions that gave back their in-memory state under the memory budget; each next detailed read of one is a cold read.',
      registers,
    });
    // A worker thread stopped under a job (killed, crashed, out of memory): its jobs failed (an
    // import a 503) or, the signature checks, ran on the main thread instead.
    const unsubscribe = onWorkerStop((s) => app.log.warn({ ...s }, 'worker thread stopped'));
    app.addHook('onClose', async () => unsubscribe());
    memory.onRelease(({ given, heldBytes, budgetBytes }) => {
      releases.inc(given.length);
      app.log.info(
        {
          competitions: given.map((g) => g.competitionId),
          releasedBytes: given.reduce((n, g) => n + g.bytes, 0),
          heldBytes,
          budgetBytes,
        },
        'competitions gave back their in-memory state (SCORING_MEMORY_BUDGET_MB)',
      );
    });
    validatorMetrics(app, registers);
    new Gauge({
      name: 'scoring_import_sessions_open',
      help: 'Import sessions open (a dead client holds one until it expires after 15 minutes idle).',
      registers,
      collect() {
        this.set(app.services.imports.count().open);
      },
    });
    new Gauge({
      name: 'scoring_import_sessions_max',
      help: 'Import sessions open at most; past it, opening one is a 409.',
      registers,
      collect() {
        this.set(app.services.imports.count().max);
      },
    });
    if (store.capabilities.postgres) postgresMetrics(store.capabilities.postgres, registers);
    const walBytes = store.capabilities.walBytes;
    if (walBytes)
      new Gauge({
        name: 'scoring_sqlite_wal_bytes',
        help: "Size of the SQLite database's write-ahead log; growing past 16 MiB: another process's read transaction keeps it from being checkpointed (docs/OPERATING.md).",
        registers,
        collect() {
          this.set(walBytes());
        },
      });
  },
  { name: 'service-metrics', dependencies: ['metrics'] },
);
