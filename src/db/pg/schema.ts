// The PostgreSQL schema, src/db/schema.ts table by table (test/db/pgSchema.test.ts holds the two
// together): the column kinds and their reasons (./schema/columns.ts), the scoring data
// (./schema/scoring.ts) and what the server records beside it (./schema/records.ts). What
// drizzle-kit reads (drizzle.pg.config.ts) and the repositories import from here.
export * from './schema/scoring.js';
export * from './schema/records.js';
