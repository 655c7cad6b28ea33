// The two PostgreSQL drivers that bench/pgDriver.ts compares, behind one small interface. They
// are loaded by name, so the bench type-checks and runs with only the chosen one (`pg`)
// installed; the types below are the parts of their APIs used here.

export interface Driver {
  name: string;
  exec: (sql: string) => Promise<void>;
  /** One transaction running `sql` once with `params`, as the prepared statement `name`. */
  insert: (name: string, sql: string, params: unknown[]) => Promise<unknown>;
  /** The same, each parameter an array of the element type in `types` ('text', 'int8', ...). */
  insertArrays: (name: string, sql: string, arrays: unknown[][], types: string[]) => Promise<unknown>;
  /** A query's row count; `prepared` false sends the text each time (an unnamed statement). */
  count: (name: string, sql: string, params: unknown[], prepared: boolean) => Promise<number>;
  /** The rows of a query, read whole. */
  rows: (sql: string) => Promise<Record<string, unknown>[]>;
  /** How many rows a query gives, read in batches of `size`; null when the driver cannot stream. */
  stream: (sql: string, size: number) => Promise<number | null>;
  close: () => Promise<void>;
}

interface PgClient {
  connect(): Promise<void>;
  query(
    q: string | { name?: string; text: string; values?: unknown[] },
    values?: unknown[],
  ): Promise<{ rows: unknown[] }>;
  query<C>(cursor: C): C;
  end(): Promise<void>;
}
interface PgCursor {
  read(n: number): Promise<unknown[]>;
  close(): Promise<void>;
}
type PgModule = { default: { Client: new (c: { connectionString: string }) => PgClient } };
type PgCursorModule = { default: new (text: string, values?: unknown[]) => PgCursor };

interface PostgresQuery extends Promise<unknown[]> {
  cursor(rows: number): AsyncIterable<unknown[]>;
}
interface PostgresSql {
  unsafe(sql: string, params?: unknown[], options?: { prepare?: boolean }): PostgresQuery;
  begin<T>(fn: (tx: PostgresSql) => Promise<T>): Promise<T>;
  /** An array parameter of the given element type (oid). */
  array(values: unknown[], type: number): unknown;
  end(): Promise<void>;
}
type PostgresModule = { default: (url: string, options: Record<string, unknown>) => PostgresSql };

/** Type oids, which `postgres` needs to send an array parameter. */
const OIDS: Record<string, number> = { text: 25, int4: 23, bool: 16, int8: 20, float8: 701 };

async function load<T>(name: string): Promise<T | null> {
  try {
    return (await import(name)) as T;
  } catch {
    return null;
  }
}

/** `pg` (node-postgres) on one client; streaming through `pg-cursor` when it is installed. */
async function pgDriver(url: string): Promise<Driver | null> {
  const pg = await load<PgModule>('pg');
  if (!pg) return null;
  const Cursor = (await load<PgCursorModule>('pg-cursor'))?.default;
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  const tx = async (fn: () => Promise<unknown>) => {
    await client.query('BEGIN');
    try {
      await fn();
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  };
  return {
    name: 'pg',
    exec: async (sql) => void (await client.query(sql)),
    insert: (name, text, values) => tx(() => client.query({ name, text, values })),
    // pg writes a JS array as an array literal; the SQL casts it.
    insertArrays: (name, text, values) => tx(() => client.query({ name, text, values })),
    count: async (name, text, values, prepared) =>
      (await client.query(prepared ? { name, text, values } : { text, values })).rows.length,
    rows: async (sql) => (await client.query(sql)).rows as Record<string, unknown>[],
    stream: async (sql, size) => {
      if (!Cursor) return null;
      const cursor = client.query(new Cursor(sql));
      let n = 0;
      for (let rows = await cursor.read(size); rows.length > 0; rows = await cursor.read(size)) n += rows.length;
      await cursor.close();
      return n;
    },
    close: () => client.end(),
  };
}

/** `postgres` (porsager) with one connection. */
async function postgresDriver(url: string): Promise<Driver | null> {
  const mod = await load<PostgresModule>('postgres');
  if (!mod) return null;
  const sql = mod.default(url, { max: 1, onnotice: () => {} });
  return {
    name: 'postgres',
    exec: async (text) => void (await sql.unsafe(text)),
    insert: (_name, text, params) => sql.begin((tx) => tx.unsafe(text, params, { prepare: true })),
    insertArrays: (_name, text, arrays, types) => {
      const params = arrays.map((values, c) => sql.array(values, OIDS[types[c]!]!));
      return sql.begin((tx) => tx.unsafe(text, params, { prepare: true }));
    },
    count: async (_name, text, params, prepared) => (await sql.unsafe(text, params, { prepare: prepared })).length,
    rows: async (text) => (await sql.unsafe(text)) as Record<string, unknown>[],
    stream: async (text, size) => {
      let n = 0;
      for await (const rows of sql.unsafe(text).cursor(size)) n += rows.length;
      return n;
    },
    close: () => sql.end(),
  };
}

/** Each candidate: opens a connection, or gives null when the package is not installed. */
export const DRIVERS: ((url: string) => Promise<Driver | null>)[] = [pgDriver, postgresDriver];
