// Prometheus metrics, on a registry of the app's own so several apps in one process (tests) do
// not collide; the process's own metrics on one registry a process.
import type { FastifyInstance, RouteOptions, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { workerStops } from '../workerThread.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const REQUEST_DURATION = 'http_request_duration_seconds';
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type DurationLabels = { method: string; route: string; status: string };

/** A label value as the text format writes it (and prom-client does): backslash, newline and quote escaped. */
const labelValue = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** The durations of one (method, route, status): a count for each bucket (not cumulative), sum and count. */
class DurationSeries {
  readonly inBucket = new Float64Array(DURATION_BUCKETS.length);
  sum = 0;
  count = 0;
  /** Its lines up to their values: each bucket's, +Inf's, the sum's and the count's (made once). */
  readonly lineStarts: string[];
  constructor(readonly labels: DurationLabels) {
    const l = `method="${labelValue(labels.method)}",route="${labelValue(labels.route)}",status="${labelValue(labels.status)}"`;
    this.lineStarts = [
      ...[...DURATION_BUCKETS, '+Inf'].map((le) => `\n${REQUEST_DURATION}_bucket{le="${le}",${l}} `),
      `\n${REQUEST_DURATION}_sum{${l}} `,
      `\n${REQUEST_DURATION}_count{${l}} `,
    ];
  }

  observe(seconds: number): void {
    // A bucket holds the durations up to its bound (`le`); longer ones count only in +Inf.
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    if (i < DURATION_BUCKETS.length) this.inBucket[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * `http_request_duration_seconds`, a Prometheus histogram by method, route and status, exposed as
 * prom-client's own Histogram is (the same lines), but observed for the price of a few additions.
 * A request's series is found without building or hashing a label key: each route holds its own
 * (`forRoute`), by status code. prom-client's labelled `observe` validates and hashes the labels on
 * every request, with the key built to find its child: a dozen times this one's share of a warm
 * read's CPU.
 */
export class RequestDurations {
  readonly name = REQUEST_DURATION;
  readonly help = 'HTTP request duration by method, route and status.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series: DurationSeries[] = [];
  private readonly observers = new Map<string, (status: number, seconds: number) => void>();

  /**
   * Observes the requests of one route and method: seconds by status code. The same observer for
   * the same route, so each series is one whichever way its requests are answered.
   */
  forRoute(method: string, route: string): (status: number, seconds: number) => void {
    const key = `${method} ${route}`;
    let observer = this.observers.get(key);
    if (!observer) this.observers.set(key, (observer = this.newObserver(method, route)));
    return observer;
  }

  private newObserver(method: string, route: string): (status: number, seconds: number) => void {
    const byStatus = new Map<number, DurationSeries>();
    return (status, seconds) => {
      let s = byStatus.get(status);
      if (!s) {
        s = new DurationSeries({ method, route, status: String(status) });
        byStatus.set(status, s);
        this.series.push(s);
      }
      s.observe(seconds);
    };
  }

  /**
   * The histogram in the text format, the same bytes as prom-client's Registry renders from `get()`
   * (test/http/metrics.test.ts holds them equal), made by concatenation. /metrics is open and counted
   * by no rate limit, and every (method, route, status) answered is a series of 15 lines: prom-client
   * builds and escapes each line's labels anew on every scrape, 7 ms for 150 series where this takes
   * 0.2 ms (test/reliability/metricsScrape.test.ts bounds a whole scrape).
   */
  text(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} ${this.type}`;
    for (const s of this.series) {
      const starts = s.lineStarts;
      let cumulative = 0;
      for (let i = 0; i < DURATION_BUCKETS.length; i++) out += starts[i]! + (cumulative += s.inBucket[i]!);
      const inf = DURATION_BUCKETS.length;
      out += starts[inf]! + s.count + starts[inf + 1]! + s.sum + starts[inf + 2]! + s.count;
    }
    return out;
  }

  /** What prom-client's Registry renders (its Histogram's `get()` shape): cumulative buckets, +Inf, sum, count. */
  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.inBucket[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${REQUEST_DURATION}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${REQUEST_DURATION}_bucket` });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${REQUEST_DURATION}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${REQUEST_DURATION}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    for (const s of this.series) {
      s.inBucket.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

/**
 * The process's own metrics (memory, CPU, event-loop delay, garbage collection), prom-client's
 * default collectors: once a process, since they watch the process, not an app, and are never
 * stopped (a GC observer and an event-loop timer each). One set an app would keep every closed app
 * of a process that builds many (the tests) alive, and hand every collection to each of them.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    new Counter({
      name: 'scoring_worker_stops_total',
      help: 'Worker threads (importWorker, verifyWorker, txWorker) stopped under a job or by an error; the next job starts a new one.',
      labelNames: ['worker'] as const,
      registers: [processRegistry],
      collect() {
        this.reset();
        for (const [worker, n] of workerStops()) this.inc({ worker }, n);
      },
    });
  }
  return processRegistry;
}

export function createMetrics() {
  const registry = new Registry();
  const processWide = processMetrics();
  // Rendered by itself, after the registries' metrics (`exposition`).
  const requestDuration = new RequestDurations();
  // Counted by a plain addition on each such read; prom-client is asked only when scraped.
  const keptReads = { answered: 0 };
  new Counter({
    name: 'scoring_kept_reads_total',
    help: 'Score reads answered from their kept bodies ahead of the router (src/http/fastReads.ts); also in http_request_duration_seconds.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(keptReads.answered);
    },
  });
  return {
    registry,
    /** GET /metrics: the process's metrics, then the app's, the request durations last. */
    exposition: () => {
      const merged = Registry.merge([processWide, registry]);
      return {
        contentType: merged.contentType,
        metrics: async () => `${await merged.metrics()}\n${requestDuration.text()}\n`,
      };
    },
    requestDuration,
    keptReads,
    requestsRefused: new Counter({
      name: 'scoring_requests_refused_total',
      help: 'Requests refused, by why: 503s (database, disk, temporary folder, workers), limits at the door (429, 408, 503 busy), outdated validators (426). docs/OPERATING.md, "Watching it".',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    /** SCORING_SNAPSHOT_INTERVAL's passes (src/server.ts). */
    snapshotsTaken: new Counter({
      name: 'scoring_snapshots_taken_total',
      help: 'Snapshots taken by the periodic passes (SCORING_SNAPSHOT_INTERVAL).',
      registers: [registry],
    }),
    snapshotFailures: new Counter({
      name: 'scoring_snapshot_failures_total',
      help: "Competitions whose periodic snapshot failed, or passes that could not start (each logged as 'periodic snapshot failed', with its competitionId).",
      registers: [registry],
    }),
    snapshotPassSucceeded: new Gauge({
      name: 'scoring_snapshot_pass_last_success_timestamp_seconds',
      help: 'When a periodic snapshot pass last finished with every competition taken or unchanged (Unix time); 0 before the first.',
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

/** The methods a route may take: an unmatched request's `method` label is one of them, or `other`. */
const ROUTE_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Decorates the app with its metrics and times every request by route and status. Each route gets
 * an onResponse hook of its own that knows its route, so a request costs no lookup of it; requests
 * that match no route are timed by the one app-wide hook, as route `unmatched`, and with a method no
 * route takes as method `other`.
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance, { metrics }: { metrics: Metrics }) => {
    app.decorate('metrics', metrics);
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = [route.method].flat();
      const observers = new Map(methods.map((m) => [m, metrics.requestDuration.forRoute(m, route.url)]));
      const observe = observers.size === 1 ? observers.values().next().value! : null;
      const timed: onResponseHookHandler = (request, reply, done) => {
        (observe ?? observers.get(request.method)!)(reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      route.onResponse = [...[route.onResponse ?? []].flat(), timed];
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) {
        // The client chose the method, among the dozens Node parses: those no route takes count together.
        const method = ROUTE_METHODS.has(request.method) ? request.method : 'other';
        metrics.requestDuration.forRoute(method, 'unmatched')(reply.statusCode, reply.elapsedTime / 1000);
      }
      done();
    });
  },
  { name: 'metrics' },
);
