// The schema as tools outside the repositories read it (src/tools/copy): every table with its
// columns, key and value kinds, in foreign-key order, and the number of migrations each engine's
// schema has. Read from the PostgreSQL drizzle schema, which test/db/pgSchema.test.ts holds equal
// to the SQLite one.
import { is } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import { readFileSync } from 'node:fs';
import { MIGRATIONS_FOLDER } from './client.js';
import { PG_MIGRATIONS_FOLDER } from './pg/migrate.js';
import * as pgSchema from './pg/schema.js';

export { migratePostgres } from './pg/migrate.js';
export { arrayLiteral } from './pg/arrayLiteral.js';

export type Kind = 'text' | 'int' | 'real' | 'bool';

export interface Column {
  name: string;
  kind: Kind;
  /** The PostgreSQL type, for the unnest arrays. */
  pgType: string;
}

export interface TableSpec {
  name: string;
  columns: Column[];
  /** The primary key: rows are read in its order, which both engines have an index for. */
  key: string[];
  /** A GENERATED ALWAYS identity column in PostgreSQL (the run and audit sequences). */
  identity: boolean;
}

const KINDS: Record<string, Kind> = {
  text: 'text',
  bigint: 'int',
  integer: 'int',
  'double precision': 'real',
  boolean: 'bool',
};

/**
 * The tables `c` references: its foreign keys' and, for runs, tasks, whose reference PostgreSQL
 * holds by triggers (pgSchema.runsTaskGuard); a statement's runs are checked as it ends, so their
 * tasks go first.
 */
function references(c: ReturnType<typeof getTableConfig>): string[] {
  const targets = c.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name);
  const guard = pgSchema.runsTaskGuard;
  return c.name === guard.table ? [...targets, guard.foreignTable] : targets;
}

/** Every table of the schema but `leftOut`, a referenced table before the tables that reference it. */
export function schemaTables(leftOut: ReadonlySet<string> = new Set()): TableSpec[] {
  const configs = (Object.values(pgSchema) as unknown[])
    .filter((t): t is PgTable => is(t, PgTable))
    .map((t) => getTableConfig(t))
    .filter((c) => !leftOut.has(c.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const order: typeof configs = [];
  const placed = new Set<string>();
  while (order.length < configs.length) {
    const next = configs.find(
      (c) => !placed.has(c.name) && references(c).every((target) => target === c.name || placed.has(target)),
    );
    if (!next) throw new Error('the schema has a foreign-key cycle');
    order.push(next);
    placed.add(next.name);
  }
  return order.map((c) => {
    const columns = c.columns.map((col) => {
      const pgType = col.getSQLType();
      const kind = KINDS[pgType];
      if (!kind) throw new Error(`${c.name}.${col.name}: no copy rule for type ${pgType}`);
      return { name: col.name, kind, pgType };
    });
    const primary = c.columns.filter((col) => col.primary).map((col) => col.name);
    const key = primary.length > 0 ? primary : c.primaryKeys[0]!.columns.map((col) => col.name);
    const identity = c.columns.some((col) => col.generatedIdentity !== undefined);
    return { name: c.name, columns, key, identity };
  });
}

/** How many migrations this version's schema has on an engine. */
export function migrationCount(engine: 'sqlite' | 'postgres'): number {
  const folder = engine === 'sqlite' ? MIGRATIONS_FOLDER : PG_MIGRATIONS_FOLDER;
  const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}
