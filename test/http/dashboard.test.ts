// The dashboard plugin: serves the built files at `/` with no token, says how to build them when
// they are missing, and leaves every other path to the API's problem+json 404.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import dashboard from '../../src/plugins/dashboard.js';
import { testApp } from '../support/app.js';

const dirs: string[] = [];
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function appWith(root: string) {
  const app = Fastify();
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
  it('serves index.html at / with a CSP that allows nothing from elsewhere, revalidated', async () => {
    const res = await (await appWith(built())).inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<title>dashboard</title>');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    // Styles come from the stylesheet and the CSSOM: nothing inline (test/browser/csp.browser.ts).
    expect(res.headers['content-security-policy']).toContain("style-src 'self';");
    expect(res.headers['content-security-policy']).not.toContain("'unsafe-inline'");
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets as immutable', async () => {
    const res = await (await appWith(built())).inject({ url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('answers / with a 503 problem saying how to build when web/dist is missing', async () => {
    const res = await (await appWith(join(tmpdir(), 'no-such-dashboard-build'))).inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 503, title: 'Dashboard not built' });
    expect(res.json().detail).toContain('npm run build:web');
  });

  it('in the app: / needs no token even when reads do, and unknown paths stay problem+json 404s', async () => {
    const t = await testApp({ readsRequireToken: true });
    try {
      expect([200, 503]).toContain((await t.call({ url: '/' })).status); // 503 until web/ is built
      const missing = await t.call({ url: '/nothing-here' });
      expect(missing.status).toBe(404);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((await t.call({ url: '/v1/competitions' })).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
