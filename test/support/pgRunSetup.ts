// Global setup of the postgres project (vitest.config.ts): names this run's PostgreSQL app
// databases, which the suites comparing both engines make and keep for the next app
// (test/support/engine.ts), and drops them when the run ends, where a server answers.
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { dropDatabases } from './postgres.js';

export default function setup(project: TestProject) {
  const run = randomBytes(4).toString('hex');
  project.provide('pgRun', run);
  return async () => {
    await dropDatabases(`swe_test_app_${run}_`).catch(() => {});
  };
}
