// What the services and the storage hold and give up, for the operator (docs/OPERATING.md,
// "Watching it"): on /metrics with the rest, read when scraped, and logged where a line helps act.
// - The memory budget (SCORING_MEMORY_BUDGET_MB): what the competitions' in-memory state holds
//   against it, and each release, which turns that competition's next detailed read into a cold one.
// - SQLite's write-ahead log, which another process's long read keeps from being checkpointed.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import type { Store } from '../db/contract.js';

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
