// The engine a test project runs on (vitest.config.ts sets SCORING_TEST_ENGINE=postgres for the
// PostgreSQL projects), and, on PostgreSQL, the database standing in for a SQLite file path: one
// per path, copied from the run's migrated template, so a server or app reopened on the same path
// finds its data. They are dropped when the run ends (test/support/pgGlobalSetup.ts).
import { inject } from 'vitest';
import type { Engine } from '../../src/db/store.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { copyDatabase, createScratchDatabase, type ScratchDatabase } from './postgres.js';

export const TEST_ENGINE: Engine = process.env.SCORING_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

const databasesByPath = new Map<string, ScratchDatabase>();

/** A fresh PostgreSQL database, or the one already standing in for `path`. */
export async function postgresDatabaseFor(path?: string): Promise<ScratchDatabase> {
  const known = path === undefined ? undefined : databasesByPath.get(path);
  if (known) return known;
  const template = inject('pgTemplate');
  let db: ScratchDatabase;
  if (template) db = await copyDatabase(template, `app_${inject('pgRun')}`);
  else {
    // A SQLite project's suite that compares both engines: no template, migrate this one.
    db = await createScratchDatabase('app');
    await migratePostgres(db.url);
  }
  if (path !== undefined) databasesByPath.set(path, db);
  return db;
}
