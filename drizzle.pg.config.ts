// drizzle-kit for the PostgreSQL schema (issue 15): `npm run db:generate:pg` writes migrations/pg/.
// SQLite keeps drizzle.config.ts and migrations/.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg/schema.ts',
  out: './migrations/pg',
});
