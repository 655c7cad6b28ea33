// The SQLite database schema, in two parts: the scoring data (competitions, tasks, runs and their
// aggregates: ./schema/scoring.ts) and what the server records beside it (./schema/records.ts).
// Both are what drizzle-kit reads (drizzle.config.ts) and what the repositories import from here.
export * from './schema/scoring.js';
export * from './schema/records.js';
