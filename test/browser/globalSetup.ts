// Once per browser run: build the dashboard, check that chromium is there, and seed the demo
// competition into a database file that each test file copies.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { cli } from '../cli/cli.js';
import { CHROMIUM } from './browser.js';
import { SERVER_ADMIN_TOKEN as ADMIN_TOKEN } from '../support/serverProcess.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    demoDb: string;
  }
}

export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (apt-get install chromium)`);
  await build({ configFile: join(ROOT, 'web/vite.config.ts') });
  const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-browser-'));
  const demoDb = join(dir, 'demo.db');
  // The compiled command line in CI (SCORING_TEST_SERVER_ENTRY=dist), as the other suites run it.
  const seeded = await cli('demo', ['--no-serve'], { DATABASE_PATH: demoDb, SCORING_ADMIN_TOKEN: ADMIN_TOKEN });
  if (seeded.code !== 0) throw new Error(`swe-scoring demo --no-serve: exit ${seeded.code}\n${seeded.stderr}`);
  project.provide('demoDb', demoDb);
  return () => rmSync(dir, { recursive: true, force: true });
}
