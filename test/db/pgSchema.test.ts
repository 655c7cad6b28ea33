// The PostgreSQL schema (src/db/pg/schema.ts through migrations/pg) against the SQLite one as the
// real SQLite migrations build it: the same tables and columns, the same nullability, compatible
// types, the same primary keys, unique keys, indexes and foreign keys (but runs -> tasks, which
// PostgreSQL holds by triggers: runsTaskGuard); then what the Postgres
// types must keep: token counts exact up to 2^53 - 1 and refused past it, JSON bytes as written,
// doubles as doubles, times in SQLite's format.
import type Database from 'better-sqlite3';
import { eq, getTableColumns, is } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import * as pgSchema from '../../src/db/pg/schema.js';
import * as sqliteSchema from '../../src/db/schema.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

interface Table {
  /** name -> `type null|not null` */
  columns: Record<string, { type: string; notNull: boolean }>;
  primaryKey: string[];
  /** Unique keys other than the primary key, each as `a,b`, sorted. */
  unique: string[];
  /** Other indexes by name. */
  indexes: Record<string, string[]>;
  /** `a,b -> table(c,d) on delete x`, sorted. */
  foreignKeys: string[];
}
type Schema = Record<string, Table>;

function sqliteDescription(): Schema {
  const c = openDatabase(':memory:').$client;
  try {
    return describeSqlite(c);
  } finally {
    c.close();
  }
}

function describeSqlite(c: Database.Database): Schema {
  const all = <T>(sql: string) => c.prepare(sql).all() as T[];
  const schema: Schema = {};
  const names = all<{ name: string }>(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'`,
  );
  for (const { name } of names) {
    const info = all<{ name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info('${name}')`);
    const table: Table = { columns: {}, primaryKey: [], unique: [], indexes: {}, foreignKeys: [] };
    for (const col of info) table.columns[col.name] = { type: col.type.toLowerCase(), notNull: col.notnull === 1 };
    table.primaryKey = info
      .filter((col) => col.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((col) => col.name);
    for (const index of all<{ name: string; unique: number; origin: string }>(`PRAGMA index_list('${name}')`)) {
      if (index.origin === 'pk') continue;
      const columns = all<{ name: string }>(`PRAGMA index_info('${index.name}')`).map((col) => col.name);
      if (index.unique) table.unique.push(columns.join(','));
      else table.indexes[index.name] = columns;
    }
    const fks = new Map<number, { table: string; from: string[]; to: string[]; onDelete: string }>();
    for (const fk of all<{ id: number; table: string; from: string; to: string; on_delete: string }>(
      `PRAGMA foreign_key_list('${name}')`,
    )) {
      const entry = fks.get(fk.id) ?? { table: fk.table, from: [], to: [], onDelete: fk.on_delete.toLowerCase() };
      entry.from.push(fk.from);
      entry.to.push(fk.to);
      fks.set(fk.id, entry);
    }
    table.foreignKeys = [...fks.values()].map(
      (fk) => `${fk.from.join(',')} -> ${fk.table}(${fk.to.join(',')}) on delete ${fk.onDelete}`,
    );
    table.unique.sort();
    table.foreignKeys.sort();
    schema[name] = table;
  }
  return schema;
}

const ON_DELETE: Record<string, string> = {
  a: 'no action',
  c: 'cascade',
  r: 'restrict',
  n: 'set null',
  d: 'set default',
};

async function postgresDescription(client: pg.Pool): Promise<Schema> {
  const schema: Schema = {};
  const table = (name: string) =>
    (schema[name] ??= { columns: {}, primaryKey: [], unique: [], indexes: {}, foreignKeys: [] });
  const columns = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const col of columns.rows) {
    table(col.table_name).columns[col.column_name] = { type: col.data_type, notNull: col.is_nullable === 'NO' };
  }
  const columnList = (rel: string, keys: string) => `(SELECT array_agg(a.attname::text ORDER BY k.ord)
    FROM unnest(${keys}) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.attnum)`;
  const indexes = await client.query<{
    table: string;
    name: string;
    primary: boolean;
    unique: boolean;
    columns: string[];
  }>(
    `SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary, x.indisunique AS unique,
       ${columnList('t.oid', 'x.indkey::int2[]')} AS columns
     FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`,
  );
  for (const index of indexes.rows) {
    const t = table(index.table);
    if (index.primary) t.primaryKey = index.columns;
    else if (index.unique) t.unique.push(index.columns.join(','));
    else t.indexes[index.name] = index.columns;
  }
  const fks = await client.query<{ table: string; ref: string; from: string[]; to: string[]; deltype: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS ref, c.confdeltype AS deltype,
       ${columnList('c.conrelid', 'c.conkey')} AS from, ${columnList('c.confrelid', 'c.confkey')} AS to
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  for (const fk of fks.rows) {
    table(fk.table).foreignKeys.push(
      `${fk.from.join(',')} -> ${fk.ref}(${fk.to.join(',')}) on delete ${ON_DELETE[fk.deltype]}`,
    );
  }
  for (const t of Object.values(schema)) {
    t.unique.sort();
    t.foreignKeys.sort();
  }
  return schema;
}

/** The Postgres types a column of this SQLite type may take; booleans are SQLite integers. */
function compatibleTypes(sqliteType: string, boolean: boolean): string[] {
  if (boolean) return ['boolean'];
  // A JS number is a double: `real` (4 bytes) would round it.
  return ({ integer: ['integer', 'bigint'], real: ['double precision'], text: ['text'] } as Record<string, string[]>)[
    sqliteType
  ]!;
}

/** `table.column` of the SQLite columns that drizzle reads as booleans. */
const sqliteBooleans = new Set(
  Object.values(sqliteSchema)
    .filter((t) => is(t, SQLiteTable))
    .flatMap((t) => {
      const config = sqliteTableConfig(t);
      return config.columns.filter((col) => col.dataType === 'boolean').map((col) => `${config.name}.${col.name}`);
    }),
);

/** Tables only PostgreSQL has, and why (src/db/pg/schema.ts). */
const postgresOnly = new Set([
  // Serializes a competition's writers and tells other processes it changed: SQLite has one writer process.
  'competition_versions',
  // When each (task, miner) pair was last written, for other processes' catch-up (src/db/pg/scoringInput.ts).
  'pair_versions',
  // Each engine's own (src/db/savedScores.ts): PostgreSQL's rows carry the version they stand for.
  'saved_scores',
]);

/** Tables only SQLite has, and why. */
const sqliteOnly = new Set([
  // Each engine's own (src/db/savedScores.ts): SQLite's triggers delete a row that stops being current.
  'saved_scores',
]);

const server = await testPostgres('test/db/pgSchema.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe.runIf(server.available)('the PostgreSQL schema', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  let db: NodePgDatabase<typeof pgSchema>;
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_schema');
    await migratePostgres(scratch.url);
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    db = drizzle({ client: pool, schema: pgSchema });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  it('has every SQLite table with the same columns, nullability, keys, indexes and foreign keys', async () => {
    const lite = Object.fromEntries(Object.entries(sqliteDescription()).filter(([name]) => !sqliteOnly.has(name)));
    const pgs = Object.fromEntries(
      Object.entries(await postgresDescription(pool)).filter(([name]) => !postgresOnly.has(name)),
    );
    // The one deliberate difference: PostgreSQL holds runs -> tasks by triggers, not a foreign key
    // (runsTaskGuard, migrations/pg/0011; test/db/pgRunsTaskGuard.test.ts tests what they refuse).
    // Where they are all in place, the reference counts as the foreign key SQLite has.
    const guard = pgSchema.runsTaskGuard;
    const guarded = `${guard.columns.join(',')} -> ${guard.foreignTable}(${guard.foreignColumns.join(',')}) on delete no action`;
    expect(lite[guard.table]!.foreignKeys, 'SQLite keeps the foreign key').toContain(guarded);
    expect(pgs[guard.table]!.foreignKeys, 'PostgreSQL has no foreign key there').not.toContain(guarded);
    const { rows: triggers } = await pool.query<{ name: string }>(
      `SELECT tgrelid::regclass::text || '.' || tgname AS name FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'D'`,
    );
    expect(triggers.map((t) => t.name).sort()).toEqual(
      Object.entries(guard.triggers)
        .flatMap(([table, names]) => names.map((name) => `${table}.${name}`))
        .sort(),
    );
    pgs[guard.table]!.foreignKeys = [...pgs[guard.table]!.foreignKeys, guarded].sort();
    expect(Object.keys(pgs).sort()).toEqual(Object.keys(lite).sort());
    expect(Object.keys(lite).length).toBeGreaterThanOrEqual(12);
    for (const [name, l] of Object.entries(lite)) {
      const p = pgs[name]!;
      expect(Object.keys(p.columns), name).toEqual(Object.keys(l.columns));
      for (const [column, { type, notNull }] of Object.entries(l.columns)) {
        const where = `${name}.${column}`;
        expect(p.columns[column]!.notNull, `${where} NOT NULL`).toBe(notNull);
        expect(compatibleTypes(type, sqliteBooleans.has(where)), `${where}: ${type}`).toContain(
          p.columns[column]!.type,
        );
      }
      expect(p.primaryKey, `${name} primary key`).toEqual(l.primaryKey);
      expect(p.unique, `${name} unique keys`).toEqual(l.unique);
      expect(p.indexes, `${name} indexes`).toEqual(l.indexes);
      expect(p.foreignKeys, `${name} foreign keys`).toEqual(l.foreignKeys);
    }
  });

  it('declares each table under the same export, table name and column keys in drizzle', () => {
    const lite = Object.fromEntries(
      Object.entries(sqliteSchema).filter(
        ([, t]) => is(t, SQLiteTable) && !sqliteOnly.has(sqliteTableConfig(t as SQLiteTable).name),
      ),
    ) as Record<string, SQLiteTable>;
    const pgs = Object.fromEntries(
      Object.entries(pgSchema).filter(([, t]) => is(t, PgTable) && !postgresOnly.has(pgTableConfig(t as PgTable).name)),
    ) as Record<string, PgTable>;
    expect(Object.keys(pgs).sort()).toEqual(Object.keys(lite).sort());
    for (const [key, l] of Object.entries(lite)) {
      expect(pgTableConfig(pgs[key]!).name, key).toBe(sqliteTableConfig(l).name);
      expect(Object.keys(getTableColumns(pgs[key]!)).sort(), key).toEqual(Object.keys(getTableColumns(l)).sort());
    }
  });

  it('keeps token counts exact up to 2^53 - 1 and refuses a value past it', async () => {
    const MAX = Number.MAX_SAFE_INTEGER;
    await db.insert(pgSchema.competitions).values({ id: 'c', name: 'C', finalStages: ['evaluation'] });
    await db
      .insert(pgSchema.tasks)
      .values({ competitionId: 'c', id: 't', type: 'swebench_verified', stage: 'evaluation' });
    const run = { competitionId: 'c', taskId: 't', kind: 'miner', minerHotkey: 'm', resolved: true };
    const [stored] = await db
      .insert(pgSchema.runs)
      .values({ ...run, runId: 'r1', tokensInput: MAX, tokensCachedInput: 0, tokensOutput: MAX - 2 })
      .returning();
    expect(stored).toMatchObject({ seq: 1, tokensInput: MAX, tokensCachedInput: 0, tokensOutput: MAX - 2 });
    await db
      .insert(pgSchema.minerTasks)
      .values({ competitionId: 'c', taskId: 't', hotkey: 'm', runs: 1, inputSum: MAX });
    // Past 2^53 - 1 a JS number is no longer exact: the write is refused, and nothing changes.
    const refused = { code: '23514' };
    await expect(pool.query('UPDATE miner_tasks SET input_sum = input_sum + 2')).rejects.toMatchObject(refused);
    await expect(
      db.insert(pgSchema.runs).values({ ...run, runId: 'r2', tokensInput: 1, tokensOutput: 2 ** 53 + 2 }),
    ).rejects.toMatchObject({ cause: refused });
    const [sums] = await db.select().from(pgSchema.minerTasks);
    expect(sums).toMatchObject({ inputSum: MAX, cachedSum: 0, outputSum: 0 });
  });

  it('keeps JSON as the bytes written, doubles as doubles, and times as SQLite writes them', async () => {
    // jsonb would give back {"a": true, "zz_last": [...]}: keys reordered, spaces added.
    const grading = { zz_last: [1.5, { b: null, a: 'é\u2028' }], a: true };
    const votes = [{ criterionId: 'c2', votes: [1, 0, 1] }];
    const run = { competitionId: 'c', taskId: 't', kind: 'baseline', resolved: false, grading, rubricVotes: votes };
    await db.insert(pgSchema.runs).values({ ...run, runId: 'json' });
    const { rows } = await pool.query<{ grading: string; rubric_votes: string; created_at: string }>(
      `SELECT grading, rubric_votes, created_at FROM runs WHERE run_id = 'json'`,
    );
    expect(rows[0]!.grading).toBe(JSON.stringify(grading));
    expect(rows[0]!.rubric_votes).toBe(JSON.stringify(votes));
    const [read] = await db.select().from(pgSchema.runs).where(eq(pgSchema.runs.runId, 'json'));
    expect(read).toMatchObject({ grading, rubricVotes: votes, resolved: false, minerHotkey: null });

    await pool.query(`UPDATE competitions SET weight_input = $1 WHERE id = 'c'`, [0.1 + 0.2]);
    const [competition] = await db.select().from(pgSchema.competitions);
    expect(competition).toMatchObject({ weightInput: 0.1 + 0.2, weightCachedInput: 0.1, revealAnswers: false });
    expect(competition!.finalStages).toEqual(['evaluation']);

    const sqlite = openDatabase(':memory:');
    sqlite.insert(sqliteSchema.competitions).values({ id: 'c', name: 'C', finalStages: [] }).run();
    const liteTime = sqlite.select().from(sqliteSchema.competitions).get()!.createdAt;
    sqlite.$client.close();
    const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    for (const time of [liteTime, rows[0]!.created_at, competition!.createdAt]) {
      expect(time).toMatch(ISO_MS);
      expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(60_000);
    }
  });
});
