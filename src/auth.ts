// Bearer-token authentication. Route access levels live in each route's `config.access`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Repos } from './db/repos.js';
import { forbidden, unauthorized } from './errors.js';

/** open: never asks for a token (health, metrics); public: reads, token optional unless configured. */
export type Access = 'open' | 'public' | 'validator' | 'admin';
export type Principal = { kind: 'admin' } | { kind: 'validator'; id: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function authenticator(repos: Repos, adminToken: string, readsRequireToken: boolean) {
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
    const v = repos.validators.authenticate(token);
    return v ? { kind: 'validator', id: v.id } : null;
  }

  return async function checkAccess(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    // Routes outside /v1 (docs, the OpenAPI document, unmatched paths) are open; a /v1 route
    // that forgot to declare its access fails closed.
    const url = request.routeOptions.url;
    const access = request.routeOptions.config.access ?? (url?.startsWith('/v1/') ? 'admin' : 'open');
    if (access === 'open') return;
    const who = identify(request.headers.authorization);
    request.principal = who ?? null;
    if (access === 'public' && !readsRequireToken) return;
    if (who === undefined) throw unauthorized('an Authorization: Bearer token is required');
    if (who === null) throw unauthorized('the bearer token is malformed, unknown or revoked');
    if (access === 'admin' && who.kind !== 'admin') throw forbidden('this route needs the admin token');
  };
}
