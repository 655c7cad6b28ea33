// Applies migrations/pg (drizzle-kit, from src/db/pg/schema.ts) to a PostgreSQL database. Several
// server processes may start at once on one database: each takes the same session-level advisory
// lock first, so one applies the pending migrations and the others then find nothing to do.
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { applicationName } from '../applicationName.js';

/** Resolved from this file so it works from src/ (tsx) and dist/ (node) alike. */
export const PG_MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations/pg', import.meta.url));

/** The advisory lock key held while migrating: any fixed bigint (this one is "swe-mig" in ASCII). */
const MIGRATION_LOCK = '32500898759272807';

export interface MigrateOptions {
  /** How long to wait for the connection, in milliseconds (default 10 s). */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity (default: the migrations' name without a label, ../applicationName.ts). */
  applicationName?: string;
}

/** Applies every pending migration of migrations/pg to the database at `connectionString`. */
export async function migratePostgres(connectionString: string, options: MigrateOptions = {}): Promise<void> {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: options.applicationName ?? applicationName('migrate'),
  });
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await migrate(drizzle({ client }), { migrationsFolder: PG_MIGRATIONS_FOLDER });
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await client.end();
  }
}
