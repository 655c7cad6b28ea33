// The OpenAPI document (generated from the route schemas), served at /openapi.json, and the
// interactive documentation at /docs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { CONDITIONAL, transformObject } from '../openapi.js';
import { PACKAGE_VERSION } from '../version.js';

/** The document's version is the package's: one number to bump. */
export const API_VERSION = PACKAGE_VERSION;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET its handler answers by ETag and If-None-Match (304) outside sendBody: documented as a conditional read. */
    conditional?: boolean;
  }
}

/**
 * `/docs/static/index.html` redirects to `/docs/`. Swagger UI's own redirect rewrites the URL with
 * its query, which then no longer matches its pattern: `?x=1` sent the client to the same URL
 * forever. This answers first, without the query (Swagger UI reads none).
 */
function indexRedirect(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (request.routeOptions.url !== '/docs/static/index.html') return done();
  void reply.redirect(request.url.split('?')[0]!.replace(/\/static\/index\.html$/, '/'));
}

/**
 * The copy of the document /docs draws. Swagger UI draws a lock on an operation whose `security`
 * lists anything but a lone empty requirement (`[{}]`, "no credentials"): a public read, which
 * declares `[{}, {validatorKey: []}, {adminToken: []}]` (SECURITY in ./auth.ts), would look as if
 * it needed a token. The served and committed document keep the full list, which tells generators
 * that a token may be sent (hey-api then attaches the one it holds; a server that demands tokens
 * on reads needs it). Here alone, an operation whose list holds `{}` shows as `[{}]`: no lock, and
 * "Try it out" calls it without a token, which it takes.
 */
function withoutOptionalLocks(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { security?: object[] }>>;
  for (const methods of Object.values(paths)) {
    for (const op of Object.values(methods)) {
      if (op.security?.some((r) => Object.keys(r).length === 0)) op.security = [{}];
    }
  }
  return doc;
}

/**
 * Swagger UI's policy with `style-src 'self' 'unsafe-inline'` (the dashboard, ./dashboard.ts, needs none).
 * Its bundle sets inline style attributes as it draws, which the package's own `style-src 'self'
 * https: <hashes>` blocks (a console error on every load). A hash cannot allow them: a style
 * attribute is allowed by hash only with 'unsafe-hashes', each value set must be listed, and the
 * list would change with every Swagger UI release. Inline styles only: scripts stay 'self' and the
 * package's hashes, and the page draws only this server's own OpenAPI document. A hash or nonce
 * beside 'unsafe-inline' would switch it off, so the directive is replaced whole.
 */
function docsStyles(header: string): string {
  return header.replace(/style-src [^;]*/, "style-src 'self' 'unsafe-inline'");
}

export const docsPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'swe-scoring',
          version: API_VERSION,
          description:
            'Scoring server for competitions of software-engineering agents: validators post run results, ' +
            'dashboards read per-task scores, leaderboards and incentive weights. Rules: SPEC.md.',
          license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
        },
        // No `servers`: OpenAPI then means the document's own origin (a server URL of `/`), which
        // /docs "Try it out" calls, and every generator leaves the base URL to the caller. A written
        // `[{url: '/'}]` is the same on paper, but swagger-typescript-api prefixes it to every path
        // (`//v1/…`, a host named `v1` to a browser); docs/clients.md.
        tags: [
          { name: 'competitions', description: 'Competition settings (admin writes).' },
          { name: 'tasks', description: 'Tasks and rubrics (admin writes).' },
          { name: 'validators', description: 'Validator keys (admin).' },
          { name: 'miners', description: 'Miners and their breakdowns.' },
          { name: 'runs', description: 'Run results (validators).' },
          { name: 'scores', description: 'Leaderboard and weights (public reads).' },
          { name: 'snapshots', description: 'Signed snapshots, their inputs, history and offline scoring.' },
          { name: 'operations', description: 'Health, readiness, metrics.' },
        ],
        components: {
          securitySchemes: {
            adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (SCORING_ADMIN_TOKEN).' },
            validatorKey: {
              type: 'http',
              scheme: 'bearer',
              description:
                'A validator key from POST /v1/validators. A validator created with a hotkey signs each request instead ' +
                '(Epistula v2: headers Epistula-Version, -Timestamp, -Uuid, -Signed-By, -Signed-For and -Request-Signature, ' +
                'sr25519 over `{sha256 hex of the body}.{uuid}.{timestamp}.{signedFor}`; docs/VALIDATING.md "Signed requests"), with the same rights. ' +
                'A refused signature is a 401 problem of type `urn:swe-scoring:problem:<reason>`, the reason one of ' +
                'signature-missing, signature-malformed, signature-invalid, signature-stale, signature-replayed, unknown-hotkey.',
            },
          },
        },
      },
      // A GET route that sends a kept body (src/http/representation.ts; it says `compress: false`), or
      // says `config.conditional` (a snapshot's input), is a conditional read: marked here,
      // documented as one by transformObject.
      transform: (input) => {
        const out = jsonSchemaTransform(input);
        const { method, compress, config } = input.route;
        const get = method === 'GET' || (Array.isArray(method) && method.includes('GET'));
        const conditional = get && (compress === false || config?.conditional === true);
        return conditional ? { ...out, schema: { ...out.schema, [CONDITIONAL]: true } } : out;
      },
      transformObject,
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: docsStyles,
      uiHooks: { onRequest: indexRedirect },
      transformSpecificationClone: true,
      transformSpecification: withoutOptionalLocks,
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'docs' },
);
