// The PostgreSQL schema's column kinds (./scoring.ts, ./records.ts: src/db/schema.ts table by table, with the same table and
// column names, nullability, keys and defaults, so one repository interface can sit on either
// engine and a database can be copied between them. test/db/pgSchema.test.ts holds the two
// together. The choices, argued in docs/POSTGRES.md:
// - SQLite INTEGER is 64-bit. Counts that stay small (runs per task, votes, positions) are
//   `integer`; raw token counts, their sums, sequences and millisecond times are `bigint` read
//   as JS numbers. A number is exact only up to 2^53 - 1, so every token column carries a CHECK
//   that keeps it in [0, 2^53 - 1]: a write that would make a sum inexact in JS is refused in
//   its transaction instead of being read back rounded.
// - SQLite REAL is an 8-byte double: `double precision`, never `real` (4 bytes).
// - Booleans are `boolean`.
// - JSON is `text` holding JSON.stringify's output, as SQLite's json mode does: the bytes read
//   back are the bytes written (jsonb would reorder keys and drop duplicates, and key order shows
//   in API bodies), and nothing queries inside it.
// - Times are ISO 8601 text with milliseconds and a Z, the format SQLite's default writes.
import { sql } from 'drizzle-orm';
import { bigint, check, customType, text } from 'drizzle-orm/pg-core';

/** JSON kept as the text JSON.stringify gives, read back with JSON.parse (SQLite's json mode). */
export const jsonText = <T = unknown>(name: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);

/** A bigint read as a JS number; only exact where a CHECK keeps it within 2^53 - 1 (`exact`). */
export const int64 = (name: string) => bigint(name, { mode: 'number' });

/** The largest integer a JS number holds exactly. */
const MAX_EXACT = sql.raw(String(Number.MAX_SAFE_INTEGER));
/** CHECK that each column is NULL or an integer in [0, 2^53 - 1]. */
export const exact = (name: string, columns: string[]) =>
  check(
    name,
    sql.join(
      columns.map((c) => sql`${sql.identifier(c)} BETWEEN 0 AND ${MAX_EXACT}`),
      sql` AND `,
    ),
  );

/** Now, in UTC, as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ','now') writes it. */
const nowText = sql`to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const createdAt = (name = 'created_at') => text(name).notNull().default(nowText);
