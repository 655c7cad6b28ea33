// The warm whole leaderboard and weights, answered ahead of Fastify's router.
//
// Every dashboard polls these two reads, and once a competition's scores are computed each is a
// kept body (./viewBodies.ts) whose answer depends only on three request headers. Through
// Fastify such a read costs about 10 µs of CPU more than plain `node:http` sending the same bytes
// (a request object, a child logger, the route's hooks and the reply's own pipeline), which takes a
// quarter to a third off the rate on a 124 kB leaderboard (docs/PERFORMANCE.md). Here it is answered by the
// server's request listener itself, with what Fastify would have sent: the same rules
// (`represent`, ./representation.ts), the same metrics series, counted in `scoring_kept_reads_total`.
// Answering them from the routes' onRequest hook instead (Fastify's request, reply and hooks) was
// measured at about twice this path's CPU a read (docs/PERFORMANCE.md).
//
// Where other processes write the same storage (PostgreSQL), a kept body answers only once the read
// has caught up with them (`catchUp`: src/db/contract.ts Freshness, one version read shared by the
// reads that arrive together, sent after this one arrived), exactly as the router's read would. A
// read whose body is not kept goes to the router at once, without waiting. A catch-up that fails
// (the database does not answer) is not waited for a second time: the router is handed the request
// with the failure, which its onRequest hook here answers through the error handler (the 503 the
// router's own read gives), so the answer comes within the bound one catch-up has.
//
// Anything else goes to the router unchanged: another method, a query string, a body, a signature, a
// competition whose scores are not computed or not current (before or after catching up), a log
// level that writes a line for each read, and every request once the server is closing. With
// `SCORING_READS_REQUIRE_TOKEN` the plugin is not registered: every read is authenticated by the
// router's hooks. `inject` (the tests') always goes through the router.
//
// What Fastify's hooks add to every answer is added here too: the security headers
// (src/plugins/securityHeaders.ts), and, with the anonymous rate limit on, its count by the
// connection's address and its RateLimit-* headers; a read over the limit goes to the router, which
// refuses it as it refuses any other. Behind a trusted proxy the address is Fastify's to find
// (X-Forwarded-For): src/app.ts then does not register this plugin.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../plugins/metrics.js';
import type { Verdict } from '../plugins/rateLimits.js';
import { SECURITY_HEADERS } from '../plugins/securityHeaders.js';
import { logsReads } from '../plugins/requestLog.js';
import type { View } from '../services/scores/views.js';
import { API_PREFIX } from '../routes/index.js';
import { SCORE_READ_PATHS } from '../routes/scores.js';
import { hasEpistulaHeaders } from '../signatures/headers.js';
import type { Body } from './body.js';
import { represent, type Representation } from './representation.js';

const PARAM = ':competitionId';
/** What comes before the competition id in each path: the same for both reads. */
const PREFIX = `${API_PREFIX}${SCORE_READ_PATHS.leaderboard.slice(0, SCORE_READ_PATHS.leaderboard.indexOf(PARAM))}`;

type Read = keyof typeof SCORE_READ_PATHS;

/** The reads answered here, by the rest of the path after the competition id, with their route (its metrics series). */
const READS = new Map(
  (Object.keys(SCORE_READ_PATHS) as Read[]).map((read) => {
    const path = SCORE_READ_PATHS[read];
    return [path.slice(path.indexOf(PARAM) + PARAM.length), { read, route: `${API_PREFIX}${path}` }];
  }),
);

type Observer = (status: number, seconds: number) => void;

/** A catch-up's failure as an Error, for the error handler. */
const failed = (err: unknown) => (err instanceof Error ? err : new Error('catching up failed', { cause: err }));

export interface FastReadsOptions {
  /** The view a read of the final stages would answer, when its scores are current (src/services/scores/reads.ts `kept`). */
  kept: (read: Read, competitionId: string) => View | undefined;
  /** The body of a view if it is made already (./viewBodies.ts `bodyNow`). */
  bodyNow: (view: View) => Body | undefined;
  metrics: Metrics;
  /** The anonymous rate limit by address (src/plugins/rateLimits.ts), or null when it is off. */
  admit: ((address: string) => Promise<Verdict>) | null;
  /**
   * Catches up with the writes other processes acknowledged before the call, or null where no other
   * process writes the storage (src/db/contract.ts Freshness `sync`).
   */
  catchUp: ((competitionId: string) => Promise<void>) | null;
}

export const fastReadsPlugin = fp(
  async (app: FastifyInstance, { kept, bodyNow, metrics, admit, catchUp }: FastReadsOptions) => {
    let open = true;
    app.addHook('preClose', (done) => {
      open = false;
      done();
    });
    /** Requests handed to the router after their catch-up failed, with the failure: answered as the router's read would fail. */
    const failedCatchUps = new WeakMap<IncomingMessage, Error>();
    if (catchUp)
      app.addHook('onRequest', (request, _reply, done) => {
        const failure = failedCatchUps.get(request.raw);
        if (failure === undefined) return done();
        failedCatchUps.delete(request.raw);
        done(failure);
      });
    /** Each read with the observer of its route's duration series (the one its Fastify route has). */
    const reads = new Map(
      [...READS].map(([rest, { read, route }]) => [
        rest,
        { read, observe: metrics.requestDuration.forRoute('GET', route) },
      ]),
    );

    /** Each representation's headers after the security headers, made once: representations are kept with their body. */
    const withSecurity = new WeakMap<Representation, Readonly<Record<string, string>>>();
    function headersOf(r: Representation): Readonly<Record<string, string>> {
      let all = withSecurity.get(r);
      if (all === undefined) withSecurity.set(r, (all = Object.freeze({ ...SECURITY_HEADERS, ...r.headers })));
      return all;
    }

    /** Whether a request is a plain GET the router would answer from a kept body, if there is one (`keptBody`). */
    function plainRead(req: IncomingMessage): boolean {
      const { headers } = req;
      if (!open || req.method !== 'GET') return false;
      if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
      // A signed read is checked and uses up its uuid (API.md 1.2), a token checked (an unknown one is
      // a 401): the router's hooks do that.
      if (headers.authorization !== undefined || hasEpistulaHeaders(headers)) return false;
      return !logsReads(app.log.level);
    }

    /** The kept body of a read, if the router would answer it with one now. */
    function keptBody(what: Read, competitionId: string): Body | undefined {
      if (!open) return undefined;
      // A competition id as a kept entry's key is one the router reads from this path as it is:
      // ids have no character a URL escapes. Anything unknown or not computed is the router's, and
      // a read that fails here fails again there, which answers the error as it should.
      try {
        const view = kept(what, competitionId);
        return view && bodyNow(view);
      } catch {
        return undefined;
      }
    }

    function answer(
      req: IncomingMessage,
      res: ServerResponse,
      body: Body,
      observe: Observer,
      started: number,
      limited?: Verdict,
    ): void {
      const { headers } = req;
      const r = represent(body, 'GET', headers['accept-encoding'], headers['if-none-match']);
      const all = headersOf(r);
      // One object to writeHead and no setHeader before it: Node takes it as it is and checks each
      // header once, as it writes them (17 setHeader calls cost about as much again). Handing Node
      // its internal header map instead (checked once a representation) saved the checks, 0.75 µs a
      // read, but writes private state of Node's response: not kept (docs/bench/README.md).
      res.writeHead(r.status, limited ? { ...all, ...limited.headers } : all);
      res.end(r.payload);
      metrics.keptReads.answered++;
      // Timed as Fastify times a request: until the response is finished, its last byte handed to
      // the system ('finish'). Where `end` handed it all over at once (the socket took every byte),
      // it is finished now, and Node emits 'finish' a tick later: observed now, without a listener
      // (a second 'finish' listener beside Node's own makes an array of them on every response).
      if (res.writableFinished) observe(r.status, (performance.now() - started) / 1000);
      else res.on('finish', () => observe(r.status, (performance.now() - started) / 1000));
    }

    // Fastify's listener is `app.routing` (its documented handler of Node's requests); this one
    // takes its place and hands it every request it does not answer.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- a plain function: Node calls it as the listener
    const { routing, server } = app;
    if (!server.listeners('request').includes(routing))
      throw new Error('fast reads: the server does not route through app.routing (a Fastify change?)');
    server.removeListener('request', routing);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '';
      const slash = url.startsWith(PREFIX) ? url.indexOf('/', PREFIX.length) : -1;
      const read = slash > 0 ? reads.get(url.slice(slash)) : undefined;
      if (!read) return routing(req, res);
      const started = performance.now();
      const competitionId = url.slice(PREFIX.length, slash);
      if (!plainRead(req)) return routing(req, res);
      const body = keptBody(read.read, competitionId);
      if (!body) return routing(req, res);
      if (!admit && !catchUp) return answer(req, res, body, read.observe, started);
      // Counted and caught up, then answered from the body kept at that moment (a write, here or
      // in another process, may have come between). The request itself is as it was checked.
      const then = (failure: Error | undefined, verdict: Verdict | undefined) => {
        if (failure !== undefined) failedCatchUps.set(req, failure);
        const now = failure !== undefined || verdict?.exceeded ? undefined : keptBody(read.read, competitionId);
        if (now) answer(req, res, now, read.observe, started, verdict);
        else routing(req, res);
      };
      // Without the rate limit (its default for reads), one promise a read: this runs for every
      // warm read on PostgreSQL.
      if (!admit)
        return void catchUp!(competitionId).then(
          () => then(undefined, undefined),
          (err: unknown) => then(failed(err), undefined),
        );
      const caughtUp = catchUp?.(competitionId).then(() => undefined, failed);
      Promise.all([caughtUp, admit(req.socket.remoteAddress ?? '')]).then(
        ([failure, verdict]) => then(failure, verdict),
        () => routing(req, res),
      );
    });
  },
  { name: 'fast-reads' },
);
