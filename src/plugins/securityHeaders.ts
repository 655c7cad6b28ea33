// Security headers on every response (@fastify/helmet): `X-Content-Type-Options: nosniff`, so no
// browser takes a JSON body, an error or an export for a page or a script, and a Content Security
// Policy that lets an API response load and frame nothing. The HTML pages set their own policy over
// it: the dashboard's index.html (./dashboard.ts) and Swagger UI under /docs (./docs.ts,
// `staticCSP`). Strict-Transport-Security is the TLS proxy's to send (docs/SECURITY.md).
//
// The answers made before routing do not pass Fastify's hooks and carry nosniff by other means
// (./errors.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';

export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      strictTransportSecurity: false,
    });
  },
  { name: 'security-headers' },
);
