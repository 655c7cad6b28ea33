// Debian's chromium driven by playwright-core: no downloaded browser, no network, a fresh
// profile per launch. Every page records its console errors and uncaught exceptions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { watchRequests } from './settled.js';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/**
 * Routes of API 1.1 that the dashboard probes and hides on a 404: a 404 on them is the expected
 * answer of a server without them, and the browser logs it as a console error. /events is here
 * until the server has the route (the live test asserts it works); anything else is an error.
 */
const OPTIONAL = [
  /\/v1\/competitions\/[^/]+\/validators(\?|$)/,
  /\/v1\/competitions\/[^/]+\/miners\/[^/]+\/history(\?|$)/,
  /\/v1\/competitions\/[^/]+\/events$/,
];

const ON_CHAIN = /\/v1\/competitions\/[^/]+\/weights\/chain(\?|$)/;

export interface Browser {
  context: BrowserContext;
  /** A new tab; `errors` collects its console errors and page exceptions. */
  page(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

/** `bypassCSP` lets a test inject a script tag (axe-core) past the dashboard's CSP. */
export async function launch(options: { bypassCSP?: boolean } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'swe-scoring-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    bypassCSP: options.bypassCSP ?? false,
  });
  return {
    context,
    async page() {
      const page = await context.newPage();
      await watchRequests(page);
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        const url = m.location().url;
        if (/status of 404/.test(m.text()) && OPTIONAL.some((re) => re.test(url))) return;
        // The weights page asks for the weights on chain, which are a 409 until a metagraph is recorded.
        if (/status of 409/.test(m.text()) && ON_CHAIN.test(url)) return;
        errors.push(`${m.text()} (${url})`);
      });
      page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
      return { page, errors };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
