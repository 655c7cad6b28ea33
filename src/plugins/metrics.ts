// Prometheus metrics, on a registry of the app's own so several apps in one process (tests) do
// not collide.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    runsIngested: new Counter({
      name: 'scoring_runs_ingested_total',
      help: 'Runs stored (duplicates not counted).',
      registers: [registry],
    }),
    scoreComputation: new Histogram({
      name: 'scoring_computation_seconds',
      help: "Time to load aggregates and compute one competition's scores.",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/** Decorates the app with its metrics and times every request by route and status. */
export const metricsPlugin = fp(
  async (app: FastifyInstance, { metrics }: { metrics: Metrics }) => {
    app.decorate('metrics', metrics);
    // One labelled child per (method, route, status), kept: observing through a label object
    // hashed it on every request. Routes are the app's own (or 'unmatched'), so the map stays small.
    const children = new Map<string, { observe(seconds: number): void }>();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${request.method} ${reply.statusCode} ${route}`;
      let child = children.get(key);
      if (!child) {
        child = metrics.requestDuration.labels({ method: request.method, route, status: String(reply.statusCode) });
        children.set(key, child);
      }
      child.observe(reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'metrics' },
);
