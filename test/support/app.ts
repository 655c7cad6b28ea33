// Builds the real app over a fresh database with the real migrations: in-memory SQLite (a copy of
// one migrated database, test/support/memoryDatabase.ts), or, when the test project sets
// SCORING_TEST_ENGINE=postgres (vitest.config.ts), a PostgreSQL database copied from a migrated
// template. The same suites run on both engines.
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { buildApp, type AppOptions } from '../../src/app.js';
import { openDatabase, type Db } from '../../src/db/client.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import { createSqliteStore } from '../../src/db/sqlite/store.js';
import type { Engine, Store } from '../../src/db/contract.js';
import type { Json } from './json.js';
import type { SignatureOptions } from '../../src/services/signatures.js';
import { dumpAll, tableRows, type Rows } from './dbDump.js';
import { memoryDatabase } from './memoryDatabase.js';
import { postgresDatabaseFor, recycleDatabase, TEST_ENGINE } from './engine.js';

/** Rate limits off (the test apps' default). */
export const RATE_LIMITS_OFF = { anonymous: 0, validator: 0, admin: 0 };

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

export { TEST_ENGINE };

export interface TestApp {
  app: FastifyInstance;
  engine: Engine;
  /** The SQLite database, for the suites that look at SQLite itself; throws on PostgreSQL. */
  db: Db;
  /** The storage the app runs on. */
  store: Store;
  /** The server's own ss58 address: what signed requests name in Epistula-Signed-For (GET /v1/identity's hotkey). */
  serverHotkey: string;
  /** Every row of every table (but those in `leaveOut`), in a fixed order: equal strings mean equal stored content. */
  dump(leaveOut?: readonly string[]): Promise<string>;
  /** Rows in a table. */
  count(table: string): Promise<number>;
  /** Every row of a table ordered by all its columns, `omit` left out. */
  rows(table: string, omit?: readonly string[]): Promise<Rows>;
  /** Runs SQL written for both engines (or the one given for each) and answers its rows. */
  query(sql: string | { sqlite: string; postgres: string }): Promise<Record<string, unknown>[]>;
  /** A second store over the same database, with nothing in memory yet; closed by the caller. */
  freshStore(): Promise<Store>;
  /** inject with JSON parsing of the body. */
  call(opts: InjectOptions): Promise<{ status: number; body: Json; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

type PgLayout = [table: string, columns: string[]][];
/**
 * Per inspecting connection, its database's layout, read once: the schema is the migrations' and
 * no test changes it while the app runs, and the catalog query took longer than the dump's content
 * itself (2.5 against 1.9 ms a dump of a small database), which suites dumping after each of
 * thousands of requests paid every time.
 */
const layouts = new WeakMap<pg.Client, Promise<PgLayout>>();
function pgLayout(client: pg.Client): Promise<PgLayout> {
  let layout = layouts.get(client);
  if (!layout) {
    layout = readPgLayout(client);
    layouts.set(client, layout);
  }
  return layout;
}

/** The tables and their columns, from pg_catalog (information_schema took ~30 ms a read). */
async function readPgLayout(client: pg.Client): Promise<PgLayout> {
  const rows = (
    await client.query<{ table_name: string; column_name: string }>(
      // competition_versions counts write transactions and pair_versions stamps their pairs
      // (src/db/pg/schema.ts): bookkeeping, not content.
      `SELECT c.relname AS table_name, a.attname AS column_name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
          AND c.relname NOT IN ('competition_versions', 'pair_versions')
        ORDER BY c.relname, a.attnum`,
    )
  ).rows;
  const layout = new Map<string, string[]>();
  for (const r of rows) layout.set(r.table_name, [...(layout.get(r.table_name) ?? []), r.column_name]);
  return [...layout];
}

async function postgresDump(
  client: pg.Client,
  leaveOut: readonly string[] = [],
): Promise<{ dump: string; counts: Map<string, number> }> {
  const tables = (await pgLayout(client)).filter(([table]) => !leaveOut.includes(table));
  // One round trip: the statements go as one simple query, each with its own result.
  const sql = tables
    .map(([table, columns]) => `SELECT * FROM "${table}" ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`)
    .join(';\n');
  const answer = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
  const results = Array.isArray(answer) ? answer : [answer];
  const content: Record<string, unknown[]> = {};
  const counts = new Map<string, number>();
  tables.forEach(([table], i) => {
    const rows = results[i]?.rows ?? [];
    content[table] = rows;
    counts.set(table, rows.length);
  });
  return { dump: JSON.stringify(content), counts };
}

export async function testApp(
  options: {
    readsRequireToken?: boolean;
    path?: string;
    signatures?: SignatureOptions;
    engine?: Engine;
    logger?: AppOptions['logger'];
    scoring?: AppOptions['scoring'];
    /**
     * The limits at the door; rate limits off unless given: suites send thousands of requests from
     * one address, which is not what they test (test/http/door.test.ts tests the limits).
     */
    door?: AppOptions['door'];
    trustProxy?: AppOptions['trustProxy'];
    validatorSilentAfterMs?: number;
    /** SCORING_MEMORY_BUDGET_MB (src/services/residency.ts); its default when not given. */
    memoryBudgetMb?: number;
    /** The store the app is given, made from the one opened (to watch what the app asks of it). */
    wrapStore?: (store: Store) => Store;
  } = {},
): Promise<TestApp> {
  const engine = options.engine ?? TEST_ENGINE;
  let store: Store;
  let db: Db | undefined;
  let url: string | undefined;
  let drop = () => Promise.resolve();
  // PostgreSQL: one connection for the test's own reads (dumps, counts, queries), opened on first
  // use and closed with the app; a connection a read cost more than the read.
  let inspector: Promise<pg.Client> | undefined;
  const inspect = () =>
    (inspector ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    })());
  if (engine === 'postgres') {
    const database = await postgresDatabaseFor(options.path);
    url = database.url;
    // A database standing in for a path outlives the app (a test may reopen it); the run drops it.
    if (options.path === undefined) drop = () => recycleDatabase(database);
    store = await openPostgresStore(url, { max: 4 });
  } else {
    db = options.path === undefined ? memoryDatabase() : openDatabase(options.path);
    store = createSqliteStore(db);
  }
  const app = await buildApp({
    store: options.wrapStore ? options.wrapStore(store) : store,
    adminToken: ADMIN_TOKEN,
    readsRequireToken: options.readsRequireToken,
    signatures: options.signatures,
    logger: options.logger,
    scoring: options.scoring,
    door: options.door ?? { rateLimits: RATE_LIMITS_OFF },
    trustProxy: options.trustProxy,
    validatorSilentAfterMs: options.validatorSilentAfterMs,
    memoryBudgetMb: options.memoryBudgetMb,
  });
  const t: TestApp = {
    app,
    engine,
    get db(): Db {
      if (!db) throw new Error('this test reads the SQLite database itself: it runs on SQLite only');
      return db;
    },
    store,
    serverHotkey: app.services.signatures.serverAddress,
    async dump(leaveOut = []) {
      return db ? dumpAll(db.$client, leaveOut) : (await postgresDump(await inspect(), leaveOut)).dump;
    },
    async count(table) {
      if (db) return db.$client.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
      return (await postgresDump(await inspect())).counts.get(table) ?? 0;
    },
    async rows(table, omit = []) {
      if (db) return tableRows(db.$client, table, omit);
      const cols = (await t.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
      )) as { column_name: string }[];
      const kept = cols.map((r) => r.column_name).filter((name) => !omit.includes(name));
      const order = kept.map((_, i) => i + 1).join(', ');
      return t.query(`SELECT ${kept.map((n) => `"${n}"`).join(', ')} FROM "${table}" ORDER BY ${order}`);
    },
    async query(sql) {
      const text = typeof sql === 'string' ? sql : sql[engine];
      if (db) {
        const statement = db.$client.prepare(text);
        return statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []);
      }
      return (await (await inspect()).query(text)).rows as Record<string, unknown>[];
    },
    async freshStore() {
      // SQLite: new repositories on the same connection (an in-memory database has only this one).
      if (db) return { ...createSqliteStore(db), close: async () => {} };
      return openPostgresStore(url!, { max: 2 });
    },
    async call(opts) {
      const res = await app.inject(opts);
      let body: unknown = res.body;
      try {
        body = res.body.length > 0 ? JSON.parse(res.body) : null;
      } catch {
        // leave non-JSON bodies as text
      }
      return { status: res.statusCode, body, headers: res.headers };
    },
    async close() {
      await app.close();
      await store.close();
      if (inspector) await (await inspector).end();
      await drop();
    },
  };
  return t;
}

/** Creates a competition and returns a validator key for it. */
export async function seedCompetition(t: TestApp, id = 'comp', body: Record<string, unknown> = { name: 'Test' }) {
  const c = await t.call({ method: 'PUT', url: `/v1/competitions/${id}`, headers: admin, payload: body });
  if (c.status !== 201 && c.status !== 200) throw new Error(`competition: ${c.status} ${JSON.stringify(c.body)}`);
  const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'validator' } });
  return { validatorKey: v.body.apiKey as string, validatorId: v.body.id as string };
}

/**
 * A SWE-bench run of task `a`: a baseline run (no hotkey) or a miner's, with 1,000 input tokens
 * and `output` output tokens.
 */
export const swebenchRun = (runId: string, hotkey: string | null, resolved: boolean, output = 100) => ({
  runId,
  taskId: 'a',
  resolved,
  tokens: { input: 1000, output },
  ...(hotkey ? { kind: 'miner', minerHotkey: hotkey } : { kind: 'baseline' }),
});
