// A test file's dashboard: the real server on a copy of the seeded demo database (or an empty
// one, ./server.ts), chromium (./browser.ts) and one tab that records its console errors, started
// before the file's tests and stopped after them.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launch, type Browser } from './browser.js';
import { startTestServer, type TestServer } from './server.js';

export interface Dashboard {
  server: TestServer;
  browser: Browser;
  /** The file's tab. */
  page: Page;
  /** The tab's console errors and uncaught exceptions so far. */
  errors: string[];
  /** Loads the dashboard at `hash` (its competitions list for '') and waits for `ready` to show. */
  open(hash: string, ready: string): Promise<void>;
}

export interface DashboardOptions {
  seed?: 'demo' | 'empty';
  /** The server's environment, added to the test servers' own. */
  env?: Record<string, string>;
  /** axe-core goes in as a script tag, which the dashboard's CSP refuses: a browser that bypasses it. */
  bypassCSP?: boolean;
}

/** Registers the file's beforeAll and afterAll; the fields are there once beforeAll has run. */
export function useDashboard(options: DashboardOptions = {}): Dashboard {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  const dashboard = {
    async open(hash: string, ready: string) {
      await dashboard.page.goto(`${dashboard.server.baseUrl}/${hash}`);
      await dashboard.page.locator(ready).first().waitFor();
    },
  } as Dashboard;
  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startTestServer(options.seed ?? 'demo', options.env),
      launch({ bypassCSP: options.bypassCSP }),
    ]);
    const { page, errors } = await browser.page();
    Object.assign(dashboard, { server, browser, page, errors });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return dashboard;
}
