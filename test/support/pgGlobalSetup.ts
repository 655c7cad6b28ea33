// Global setup of the test projects that run on PostgreSQL (SCORING_TEST_ENGINE=postgres): one
// database migrated once, from which every test app's database is copied (CREATE DATABASE …
// TEMPLATE takes a few tens of milliseconds; running the migrations each time would take longer),
// dropped when the run ends.
import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { randomBytes } from 'node:crypto';
import { createScratchDatabase, dropDatabases } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database the PostgreSQL test apps copy. */
    pgTemplate: string;
    /** Names this run's app databases (`swe_test_app_<run>_…`), so the teardown drops exactly them. */
    pgRun: string;
  }
}

export default async function setup(project: TestProject) {
  const template = await createScratchDatabase('template');
  await migratePostgres(template.url);
  const run = randomBytes(4).toString('hex');
  project.provide('pgTemplate', new URL(template.url).pathname.slice(1));
  project.provide('pgRun', run);
  return async () => {
    await dropDatabases(`swe_test_app_${run}_`);
    await template.drop();
  };
}
