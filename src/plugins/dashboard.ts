// Serves the dashboard, built from web/ into web/dist (`npm run build:web`; `npm start` builds it
// first), at `/`. Pages are hash routes, so the server needs no fallback route: only the built
// files are routes, and every other path keeps its problem+json 404. Without a build, `/` says so
// with a 503. Assets have content hashes in their names and are cached for good; index.html is
// revalidated and carries a CSP that allows nothing from elsewhere, and no inline script or style:
// Preact and uPlot set styles through the CSSOM (element.style), which the policy does not govern,
// and the app's CSS is its stylesheet (test/browser/csp.browser.ts draws every page under it).
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { problemType } from './errors.js';

export const DASHBOARD_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function setHeaders(reply: FastifyReply, path: string): void {
  reply.header('x-content-type-options', 'nosniff');
  if (basename(path).startsWith('index.html')) {
    reply.header('cache-control', 'no-cache');
    reply.header('content-security-policy', CSP);
  } else {
    reply.header('cache-control', 'public, max-age=31536000, immutable');
  }
}

export interface DashboardOptions {
  /** The built files; web/dist by default. */
  root?: string;
}

const dashboard: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const root = options.root ?? DASHBOARD_DIR;
  // Static files need no token, whatever SCORING_READS_REQUIRE_TOKEN says; the data they show does.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'open' };
  });
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(503)
        .type('application/problem+json')
        .send({
          type: problemType('dashboard-not-built'),
          title: 'Dashboard not built',
          status: 503,
          detail:
            'the dashboard has not been built (web/dist is missing): run `npm run build:web`, or start the server with `npm start`, which builds it',
        }),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    globIgnore: ['**/*.gz', '**/*.br'],
    preCompressed: true,
    decorateReply: false,
    cacheControl: false,
    setHeaders,
  });
};

export default dashboard;
