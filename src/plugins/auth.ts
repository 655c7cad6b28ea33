// Authentication and access. Each route declares its access level in `config.access`; this plugin
// checks it on every request and derives the route's OpenAPI `security` from the same
// declaration, so the two cannot drift.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, DomainError, forbidden, unauthorized } from '../errors.js';
import type { Principal } from '../services/principal.js';
import type { SignedBodyCheck } from '../services/signatures.js';
import { hasBody } from './bodyGuard.js';
import type { SignatureFailureBudget } from './signatureFailures.js';
import { hasEpistulaHeaders, type HeaderBag } from '../signatures/headers.js';

/** open: never asks for a token (health, metrics); public: reads, token optional unless configured. */
export type Access = 'open' | 'public' | 'validator' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /**
     * An open route counted against the per-address rate limit all the same (src/plugins/rateLimits.ts):
     * one whose answer is made anew on each request at a cost worth bounding (`/metrics`).
     */
    counted?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /**
     * Set on a signed request with a body once its headers passed (src/services/signatures.ts):
     * its signature check, run on the body's bytes as read, before they are parsed
     * (src/plugins/contentTypes.ts). Checking first means a refused body is never parsed, and an
     * accepted one is parsed once it is wanted: parsed while the check ran elsewhere, a 1,000-run
     * batch outlived V8's young generation and cost a tenth more to collect.
     */
    checkSignedBody: ((bytes: Buffer | undefined) => Promise<void>) | null;
  }
}

type Requirement = Record<string, string[]>;

/** OpenAPI security requirements for each access level. */
export const SECURITY: Record<Access, Requirement[]> = {
  open: [],
  admin: [{ adminToken: [] }],
  // Signed (Epistula) requests have the same rights as validatorKey. They are not declared as a
  // scheme of their own: generators fill an apiKey scheme's header with the token, and a request
  // carrying both a token and an Epistula header is refused.
  validator: [{ validatorKey: [] }, { adminToken: [] }],
  // Public reads: a token is accepted, and required when the server is set to demand one.
  public: [{}, { validatorKey: [] }, { adminToken: [] }],
};

/** A route's access: declared, or `admin` for an undeclared /v1 route (fail closed), else open. */
export function accessOf(url: string | undefined, declared: Access | undefined): Access {
  return declared ?? (url?.startsWith('/v1/') ? 'admin' : 'open');
}

export interface AuthOptions {
  adminToken: string;
  readsRequireToken: boolean;
  /** The validator holding a bearer key, or null. */
  validatorByKey: (key: string) => Promise<{ id: string } | null>;
  /**
   * A signed request's checks that need no body (Epistula v2; a 401 domain error saying why not),
   * answering the check of its body, which names the validator that signed it.
   */
  admitSigned: (headers: HeaderBag, now: number) => Promise<SignedBodyCheck>;
  /** Failed signature checks by client address (./signatureFailures.ts), or null when not limited. */
  signatureFailures: SignatureFailureBudget | null;
}

/** The refusals of a signature check that ran sr25519: what a failure budget counts. */
const COSTLY_REFUSALS = new Set(['signature-invalid', 'signature-replayed']);

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * A signed request's headers, each with every value it was sent with. Node joins a repeated header
 * it does not know into one value (`2, 2`), which was then refused for its shape ("must be 2") and
 * not for being sent twice; `headersDistinct` keeps the values apart (inject has no such field, and
 * hands a repeated header over as an array already).
 */
const signedHeaders = (request: FastifyRequest): HeaderBag =>
  (request.raw as { headersDistinct?: HeaderBag }).headersDistinct ?? request.headers;
/** An Authorization header of the Bearer scheme (case-insensitive, RFC 9110 11.1), well-formed or not. */
const BEARER = /^bearer(?: |$)/i;

/**
 * Methods that take no body. One sent with a body is refused: a signature covers the body, the uuid,
 * the timestamp and the server's address but not the method or path, so a body-less request's
 * headers must not be able to ride along with another body (API.md 1.2).
 */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE']);

function bodyRefused(request: FastifyRequest): Error | null {
  if (!BODILESS.has(request.method) || !hasBody(request)) return null;
  const header = request.headers['transfer-encoding'] !== undefined ? 'transfer-encoding' : 'content-length';
  return badRequest(`a ${request.method} request carries no body: send it without one`, [
    { path: `headers/${header}`, message: `a ${request.method} takes no body` },
  ]);
}

/**
 * A Fastify hook (callback style) from a check that returns at once when it can, or a promise when
 * it must wait: an async hook costs a promise and a microtask turn on every request.
 */
const hook =
  (check: (request: FastifyRequest) => Promise<void> | void) =>
  (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void => {
    let pending: Promise<void> | void;
    try {
      pending = check(request);
    } catch (err) {
      return done(err as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };

export function authenticator({
  adminToken,
  readsRequireToken,
  validatorByKey,
  admitSigned,
  signatureFailures,
}: AuthOptions) {
  const adminDigest = digest(adminToken);

  /** null: a header that names no one. */
  async function identify(header: string): Promise<Principal | null> {
    // The scheme name is case-insensitive (RFC 9110, section 11.1).
    const m = /^bearer ([\x21-\x7e]{1,512})$/i.exec(header);
    if (!m) return null;
    const token = m[1]!;
    // Digests have equal length, so the comparison time says nothing about the token.
    if (timingSafeEqual(digest(token), adminDigest)) return { kind: 'admin' };
    const v = await validatorByKey(token);
    return v ? { kind: 'validator', id: v.id } : null;
  }

  function allow(access: Access, who: Principal | null | undefined): void {
    if (access === 'public' && !readsRequireToken && who !== null) return;
    if (who === undefined)
      throw unauthorized('an Authorization: Bearer token or an Epistula signature is required', 'signature-missing');
    if (who === null) throw unauthorized('the bearer token is malformed, unknown or revoked');
    if (access === 'admin' && who.kind !== 'admin') throw forbidden('this route needs the admin token');
  }

  async function checkBody(
    request: FastifyRequest,
    access: Access,
    check: SignedBodyCheck,
    bytes: Buffer | undefined,
  ): Promise<void> {
    request.checkSignedBody = null;
    request.principal = await checked(request, check, bytes);
    allow(access, request.principal);
  }

  /** A body check, a failure of which (sr25519 ran) counts against the client's address. */
  async function checked(request: FastifyRequest, check: SignedBodyCheck, bytes: Buffer | undefined) {
    try {
      return await check(bytes);
    } catch (err) {
      if (signatureFailures && err instanceof DomainError && COSTLY_REFUSALS.has(err.reason ?? ''))
        signatureFailures.failed(request.ip, Date.now());
      throw err;
    }
  }

  return {
    /**
     * Bearer tokens, and the checks of a signed request that need no body (before a byte of it is
     * read); a signed request's body is checked as it is parsed, a body-less one's here. Answers at
     * once when no lookup is needed (a public read without a token: most of the traffic),
     * otherwise by promise.
     */
    onRequest: (access: Access) =>
      hook((request) => {
        if (hasEpistulaHeaders(request.headers)) {
          // Every signed request is checked, a public read's too: each uses up its uuid (API.md 1.2).
          const now = Date.now();
          const overBudget = signatureFailures?.refusal(request.ip, now);
          if (overBudget) throw overBudget;
          return admitSigned(signedHeaders(request), now).then((check) => {
            if (!hasBody(request)) return checkBody(request, access, check, undefined);
            request.checkSignedBody = (bytes) => checkBody(request, access, check, bytes);
          });
        }
        const header = request.headers.authorization;
        // A public read takes a bearer token, and refuses one that names no one (401, as every
        // route): a mistyped admin token is told so, not answered the anonymous view. Another
        // scheme there (Basic, from a proxy's own login) is not for this server: read anonymously.
        if (header === undefined || (access === 'public' && !BEARER.test(header))) return allow(access, undefined);
        return identify(header).then((who) => {
          request.principal = who ?? null;
          allow(access, who);
        });
      }),
    /** A signed request whose body no parser read (a method without one): checked over an empty body. */
    afterBody: hook((request) => request.checkSignedBody?.(undefined)),
    /**
     * A signed request to an open route or to no route: answered as it would be unsigned, and its
     * signature checked all the same, so that it uses up its (hotkey, uuid) like every signed request
     * (API.md 1.2): headers sent to /healthz or a mistyped path cannot be replayed on a route that
     * takes them. A refusal is not the answer here: such a request asks for no rights. A failed
     * check counts against the address as anywhere; past its budget, nothing is checked.
     */
    spendSigned: hook((request) => {
      if (!hasEpistulaHeaders(request.headers)) return;
      const now = Date.now();
      if (signatureFailures?.refusal(request.ip, now)) return;
      const ignored = () => undefined;
      return admitSigned(signedHeaders(request), now).then((check) => {
        if (!hasBody(request)) return checked(request, check, undefined).then(ignored, ignored);
        request.checkSignedBody = (bytes) => {
          request.checkSignedBody = null;
          return checked(request, check, bytes).then(ignored, ignored);
        };
      }, ignored);
    }),
  };
}

export const authPlugin = fp(
  async (app: FastifyInstance, options: AuthOptions) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('checkSignedBody', null);
    const auth = authenticator(options);
    // A GET, HEAD or DELETE with a body: a 400 before anything else, signed or not.
    app.addHook('onRequest', (request, _reply, done) => done(bodyRefused(request) ?? undefined));
    // A request that matched no route is answered 404, and its signature, if any, used up.
    app.addHook('onRequest', (request, reply, done) =>
      request.is404 ? auth.spendSigned(request, reply, done) : done(),
    );
    // Each route gets the hooks of its access level, so a request costs no lookup of its route's
    // declaration (Fastify's `request.routeOptions` builds a new object on every read); before the
    // route's own hooks, after the app-wide ones. Open routes only use up a signature (`spendSigned`).
    app.addHook('onRoute', (route: RouteOptions) => {
      const access = accessOf(route.url, route.config?.access);
      if (route.schema && !route.schema.hide) route.schema.security = SECURITY[access];
      if (access === 'open') {
        route.onRequest = [auth.spendSigned, ...[route.onRequest ?? []].flat()];
        return;
      }
      route.onRequest = [auth.onRequest(access), ...[route.onRequest ?? []].flat()];
      // preValidation: after any body was read, before the schema sees it.
      route.preValidation = [auth.afterBody, ...[route.preValidation ?? []].flat()];
    });
  },
  { name: 'auth' },
);
