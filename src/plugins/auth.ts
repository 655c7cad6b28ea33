// Authentication and access. Each route declares its access level in `config.access`; this plugin
// checks it on every request and derives the route's OpenAPI `security` from the same
// declaration, so the two cannot drift.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { forbidden, unauthorized } from '../errors.js';
import type { Principal } from '../services/principal.js';

/** open: never asks for a token (health, metrics); public: reads, token optional unless configured. */
export type Access = 'open' | 'public' | 'validator' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

type Requirement = Record<string, string[]>;

/** OpenAPI security requirements for each access level. */
export const SECURITY: Record<Access, Requirement[]> = {
  open: [],
  admin: [{ adminToken: [] }],
  validator: [{ validatorKey: [] }, { adminToken: [] }],
  // Public reads: a token is accepted, and required when the server is set to demand one.
  public: [{}, { validatorKey: [] }, { adminToken: [] }],
};

/** A route's access: declared, or `admin` for an undeclared /v1 route (fail closed), else open. */
function accessOf(url: string | undefined, declared: Access | undefined): Access {
  return declared ?? (url?.startsWith('/v1/') ? 'admin' : 'open');
}

export interface AuthOptions {
  adminToken: string;
  readsRequireToken: boolean;
  /** The validator holding a bearer key, or null. */
  validatorByKey: (key: string) => { id: string } | null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function authenticator({ adminToken, readsRequireToken, validatorByKey }: AuthOptions) {
  const adminDigest = digest(adminToken);

  /** undefined: no header; null: a header that names no one. */
  function identify(header: string | undefined): Principal | null | undefined {
    if (header === undefined) return undefined;
    // The scheme name is case-insensitive (RFC 9110, section 11.1).
    const m = /^bearer ([\x21-\x7e]{1,512})$/i.exec(header);
    if (!m) return null;
    const token = m[1]!;
    // Digests have equal length, so the comparison time says nothing about the token.
    if (timingSafeEqual(digest(token), adminDigest)) return { kind: 'admin' };
    const v = validatorByKey(token);
    return v ? { kind: 'validator', id: v.id } : null;
  }

  return async function checkAccess(request: FastifyRequest): Promise<void> {
    const access = accessOf(request.routeOptions.url, request.routeOptions.config.access);
    if (access === 'open') return;
    const who = identify(request.headers.authorization);
    request.principal = who ?? null;
    if (access === 'public' && !readsRequireToken) return;
    if (who === undefined) throw unauthorized('an Authorization: Bearer token is required');
    if (who === null) throw unauthorized('the bearer token is malformed, unknown or revoked');
    if (access === 'admin' && who.kind !== 'admin') throw forbidden('this route needs the admin token');
  };
}

export const authPlugin = fp(async (app: FastifyInstance, options: AuthOptions) => {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || route.schema.hide) return;
    route.schema.security = SECURITY[accessOf(route.url, route.config?.access)];
  });
  app.addHook('onRequest', authenticator(options));
}, { name: 'auth' });
