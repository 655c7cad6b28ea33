// Rate limits (@fastify/rate-limit): requests per window for each validator, for the admin (off
// unless set), and for each client address among requests that carry no accepted credentials. A
// request is counted once its principal is known: after its bearer token (onRequest), or, for a
// signed request with a body, after its signature over the body is checked (preValidation), so no
// one can spend a validator's allowance by sending its hotkey without its key. Open routes (health,
// metrics, the dashboard's files, /docs) are not counted.
//
// Every counted answer carries the draft IETF headers `RateLimit-Limit`, `RateLimit-Remaining` and
// `RateLimit-Reset` (seconds until the window restarts); past the limit the answer is a 429
// problem+json with `Retry-After` as well. Windows are fixed and counted in this process's memory.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { RateLimits } from '../doorLimits.js';
import { LimitError } from '../errors.js';
import { accessOf } from './auth.js';
import { ProblemSchema } from '../schemas/common.js';

/** What a counted request learns: its headers, and whether it is over the limit. */
export interface Verdict {
  headers: Record<string, string>;
  exceeded: boolean;
  retryAfter: number;
}

type Limiter = (request: FastifyRequest) => Promise<Verdict>;

/** Addresses (and principals) whose counts are kept; the least recently seen go first. */
const KEPT = 10_000;

type Check = ReturnType<FastifyInstance['createRateLimit']>;

function limiter(check: Check): Limiter {
  return async (request): Promise<Verdict> => {
    const r = await check(request);
    if (r.isAllowed) return { headers: {}, exceeded: false, retryAfter: 0 };
    const reset = String(r.ttlInSeconds);
    return {
      headers: {
        'ratelimit-limit': String(r.max),
        'ratelimit-remaining': String(r.remaining),
        'ratelimit-reset': reset,
      },
      exceeded: r.isExceeded,
      retryAfter: r.ttlInSeconds,
    };
  };
}

const tooMany = (v: Verdict, who: string, setting: string) =>
  new LimitError(
    'too_many',
    `${who} made more requests than ${v.headers['ratelimit-limit']} in the rate-limit window (${setting}); ` +
      `retry after ${v.retryAfter} s`,
    v.retryAfter,
    undefined,
    'rate-limit',
  );

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The anonymous limit by client address, for answers given outside Fastify's hooks (the kept
     * reads, src/http/fastReads.ts); null when that limit is off.
     */
    anonymousRateLimit: ((address: string) => Promise<Verdict>) | null;
  }
}

export const rateLimitsPlugin = fp(
  async (app: FastifyInstance, limits: RateLimits) => {
    // Not global: only the decorators; the hooks below decide what is counted, and when.
    await app.register(rateLimit, { global: false, enableDraftSpec: true });
    const make = (max: number, keyGenerator: (request: FastifyRequest) => string): Limiter | null =>
      max > 0
        ? limiter(app.createRateLimit({ max, timeWindow: limits.windowMs, keyGenerator, cache: KEPT } as never))
        : null;
    // A client that left between the door's check (src/plugins/connections.ts) and its count has no
    // address any more: counted together, under none.
    const anonymous = make(limits.anonymous, (request) => normalizeIP(request.ip ?? ''));
    const validator = make(limits.validator, (request) =>
      request.principal?.kind === 'validator' ? request.principal.id : '',
    );
    const admin = make(limits.admin, () => 'admin');

    const NO_ROUTE = { config: {} };
    app.decorate(
      'anonymousRateLimit',
      anonymous && ((address: string) => anonymous({ ip: address, routeOptions: NO_ROUTE } as FastifyRequest)),
    );

    async function count(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const who = request.principal;
      const [limit, name, setting] =
        who === null
          ? [anonymous, `the address ${request.ip}`, 'SCORING_RATE_LIMIT_ANONYMOUS']
          : who.kind === 'validator'
            ? [validator, `validator ${who.id}`, 'SCORING_RATE_LIMIT_VALIDATOR']
            : [admin, 'the admin', 'SCORING_RATE_LIMIT_ADMIN'];
      if (!limit) return;
      const verdict = await limit(request);
      reply.headers(verdict.headers);
      if (verdict.exceeded) throw tooMany(verdict, name, setting);
    }

    /** Signed requests with a body, counted once their signature is checked. */
    const waiting = new WeakSet<FastifyRequest>();
    const onRequest = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (request.checkSignedBody) {
        waiting.add(request);
        return done();
      }
      count(request, reply).then(() => done(), done);
    };
    const preValidation = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (!waiting.delete(request)) return done();
      count(request, reply).then(() => done(), done);
    };
    const counting = anonymous || validator || admin;
    // After the auth plugin's hooks on each route (it adds its own in its onRoute, registered first).
    app.addHook('onRoute', (route: RouteOptions) => {
      if (accessOf(route.url, route.config?.access) === 'open' && route.config?.counted !== true) return;
      // Documented whether or not this server counts: the API's description is the same everywhere.
      const responses = route.schema?.response as Record<number, unknown> | undefined;
      if (responses && !(429 in responses)) responses[429] = ProblemSchema;
      if (!counting) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), onRequest];
      route.preValidation = [...[route.preValidation ?? []].flat(), preValidation];
    });
  },
  { name: 'rate-limits', dependencies: ['auth'] },
);
