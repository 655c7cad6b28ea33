// The dashboard plugin: serves the built files at `/` with no token, says how to build them when
// they are missing, and leaves every other path to the API's problem+json 404.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticator } from '../../src/auth.js';
import type { Repos } from '../../src/db/repos.js';
import { errorHandler, notFoundHandler } from '../../src/errorHandler.js';
import dashboard from '../../src/plugins/dashboard.js';

const dirs: string[] = [];
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The plugin inside the app's error handling and an authenticator that demands tokens for reads. */
async function appWith(root: string) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', authenticator({ validators: { authenticate: () => null } } as unknown as Repos, 'admin-token', true));
  await app.register(dashboard, { root });
  apps.push(app);
  return app;
}

function built(): string {
  const root = mkdtempSync(join(tmpdir(), 'dashboard-'));
  dirs.push(root);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>dashboard</title>');
  writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  return root;
}

describe('dashboard plugin', () => {
  it('serves index.html at / without a token, with a CSP and revalidation', async () => {
    const res = await (await appWith(built())).inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<title>dashboard</title>');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets as immutable', async () => {
    const res = await (await appWith(built())).inject({ url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('leaves unknown paths to the problem+json 404 (and /v1 reads to their own auth)', async () => {
    const app = await appWith(built());
    const res = await app.inject({ url: '/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers / with a 503 problem saying how to build when web/dist is missing', async () => {
    const res = await (await appWith(join(tmpdir(), 'no-such-dashboard-build'))).inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 503, title: 'Dashboard not built' });
    expect(res.json().detail).toContain('npm run build:web');
  });
});
