// What the limits at the door hold and refuse, for Prometheus (on /metrics with the rest): bytes of
// bodies still arriving, event streams open, connections closed at the cap. Refusals by status
// (408, 429, 503) are in http_request_duration_seconds.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';

export const doorMetricsPlugin = fp(
  async (app: FastifyInstance) => {
    const registers = [app.metrics.registry];
    // Read when scraped: nothing is counted twice on the request path.
    new Gauge({
      name: 'scoring_inflight_body_bytes',
      help: 'Bytes held for request bodies still arriving (limit: SCORING_MAX_INFLIGHT_BODY_BYTES).',
      registers,
      collect() {
        this.set(app.inflightBodyBytes());
      },
    });
    new Gauge({
      name: 'scoring_event_streams',
      help: 'Server-Sent Events streams open (limit: SCORING_MAX_EVENT_STREAMS).',
      registers,
      collect() {
        this.set(app.streamSlots.count);
      },
    });
    new Counter({
      name: 'scoring_connections_dropped_total',
      help: 'Connections closed as they came, the server holding SCORING_MAX_CONNECTIONS.',
      registers,
      collect() {
        this.reset();
        this.inc(app.droppedConnections());
      },
    });
  },
  { name: 'door-metrics', dependencies: ['metrics', 'body-guard', 'connections'] },
);
