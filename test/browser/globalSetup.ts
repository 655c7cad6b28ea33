// Once per browser run: build the dashboard, check that chromium is there, and seed the demo
// competition into a database file that each test file copies.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
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
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--no-serve'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_PATH: demoDb, SCORING_ADMIN_TOKEN: ADMIN_TOKEN },
    timeout: 120_000,
  });
  project.provide('demoDb', demoDb);
  return () => rmSync(dir, { recursive: true, force: true });
}
