// Requests that write pass the write gate (src/services/writeGate.ts): the handler of every route
// that is not a GET or HEAD runs inside `gate.write()`, so it starts only when no import is
// committing on its own connection, and an import waits for the handlers already running. The
// gate wraps the handler rather than sitting in a preHandler/onResponse pair so that it is let go
// when the handler settles, whatever becomes of the connection. Reads never wait. The task
// imports take the gate themselves, exclusively, around their commit (`config.ownWriteGate`), as
// do the writes that may recount a competition (src/services/writeGate.ts `gatedTransaction`);
// wrapping them too would have them wait for themselves.
import type { FastifyInstance, RouteHandlerMethod, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { WriteGate } from '../services/writeGate.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's service takes the write gate itself (the task imports, the recounts). */
    ownWriteGate?: boolean;
  }
}

const reads = new Set(['GET', 'HEAD']);

export const writeGatePlugin = fp(
  async (app: FastifyInstance, { gate }: { gate: WriteGate }) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = [route.method].flat();
      if (methods.every((m) => reads.has(m)) || route.config?.ownWriteGate) return;
      const handler = route.handler as RouteHandlerMethod;
      route.handler = function gated(request, reply) {
        return gate.write(() => handler.call(this, request, reply));
      };
    });
    const registers = [app.metrics.registry];
    new Gauge({
      name: 'scoring_import_committing',
      help: '1 while a task import commits on its own connection; writes wait meanwhile, reads do not.',
      registers,
      collect() {
        this.set(gate.state().importing ? 1 : 0);
      },
    });
    new Gauge({
      name: 'scoring_writes_waiting',
      help: 'Writes waiting for a task import to finish committing.',
      registers,
      collect() {
        this.set(gate.state().waiting);
      },
    });
  },
  { name: 'writeGate', dependencies: ['metrics'] },
);
