// The warm whole leaderboard, weights and weights on chain, answered from the route's onRequest
// hook, before the request is validated and handled.
//
// Every dashboard polls these reads, and once a competition's scores are computed each is a kept
// body (./viewBodies.ts) whose answer depends only on three request headers. The hook runs last
// among the route's onRequest hooks, so everything before it has run as for any request: security
// headers, authentication (SCORING_READS_REQUIRE_TOKEN), the rate limits and their headers. The
// answer then leaves through Fastify's reply (./representation.ts `represent`, the same rules as
// the handler's `sendBody`), so the onSend and onResponse hooks, the metrics series and the request
// log see it as any other; `scoring_kept_reads_total` counts the reads answered here.
//
// Anything else goes on to validation and the handler unchanged: another method, a query string,
// a body, a signature (checked and used up by the auth hooks that follow), a competition whose
// scores are not computed or not current, and storage that other processes write (PostgreSQL: a
// read first catches up with them, src/services/scores/reads.ts `kept`).
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../plugins/metrics.js';
import type { View } from '../services/scores/views.js';
import { hasEpistulaHeaders } from '../signatures/headers.js';
import { API_PREFIX } from '../routes/index.js';
import { SCORE_READ_PATHS } from '../routes/scores.js';
import type { Body } from './body.js';
import { represent } from './representation.js';

type Read = keyof typeof SCORE_READ_PATHS;

/** The reads answered here, by their route's URL. */
const READS = new Map(
  (Object.keys(SCORE_READ_PATHS) as Read[]).map((read) => [`${API_PREFIX}${SCORE_READ_PATHS[read]}`, read]),
);

export interface FastReadsOptions {
  /** The view a read of the final stages would answer, when its scores are current (src/services/scores/reads.ts `kept`). */
  kept: (read: Read, competitionId: string) => View | undefined;
  /** The body of a view if it is made already (./viewBodies.ts `bodyNow`). */
  bodyNow: (view: View) => Body | undefined;
  metrics: Metrics;
}

export const fastReadsPlugin = fp(
  async (app: FastifyInstance, { kept, bodyNow, metrics }: FastReadsOptions) => {
    /** The kept body a request asks for, if it is a plain GET of one the handler would answer with it. */
    function keptFor(request: FastifyRequest, read: Read): Body | undefined {
      const { headers, raw } = request;
      if (request.method !== 'GET' || raw.url!.includes('?')) return undefined;
      if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
      // A signed read is checked and uses up its uuid (API.md 1.2): the auth hooks after this do that.
      if (hasEpistulaHeaders(headers)) return undefined;
      // A read that fails here fails again in the handler, which answers the error as it should.
      try {
        const view = kept(read, (request.params as { competitionId: string }).competitionId);
        return view && bodyNow(view);
      } catch {
        return undefined;
      }
    }

    function hook(read: Read): onRequestHookHandler {
      return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        const body = keptFor(request, read);
        if (!body) return done();
        const { headers } = request;
        const r = represent(body, 'GET', headers['accept-encoding'], headers['if-none-match']);
        metrics.keptReads.answered++;
        // Answered here: the hooks after this one, validation and the handler do not run.
        reply.code(r.status).headers(r.headers).send(r.payload);
      };
    }

    // Last among each read's onRequest hooks: after authentication and the rate limits, whose
    // plugins add theirs in their own onRoute hooks, registered before this one.
    app.addHook('onRoute', (route: RouteOptions) => {
      const read = READS.get(route.url);
      if (!read || ![route.method].flat().includes('GET')) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), hook(read)];
    });
  },
  { name: 'fast-reads', dependencies: ['auth', 'rate-limits', 'metrics'] },
);
