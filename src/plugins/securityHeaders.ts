// Security headers on every response (@fastify/helmet): `X-Content-Type-Options: nosniff`, so no
// browser takes a JSON body, an error or an export for a page or a script, and a Content Security
// Policy that lets an API response load and frame nothing. The HTML pages set their own policy over
// it: the dashboard's index.html (./dashboard.ts) and Swagger UI under /docs (./docs.ts,
// `staticCSP`). Strict-Transport-Security is the TLS proxy's to send (docs/SECURITY.md).
//
// Two kinds of answer do not pass Fastify's hooks and carry the same headers by other means: the
// kept reads (src/http/fastReads.ts: SECURITY_HEADERS, which test/http/fastReads.test.ts holds to
// what this plugin sends) and the answers made before routing (./errors.ts: nosniff).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';

const POLICY = "default-src 'none';frame-ancestors 'none'";

/** Everything the plugin sets on an API response, as helmet writes it. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': POLICY,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      strictTransportSecurity: false,
    });
  },
  { name: 'security-headers' },
);
