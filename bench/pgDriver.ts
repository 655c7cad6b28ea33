// Which PostgreSQL driver (issue 15): `pg` (node-postgres) against `postgres` (porsager), on the
// three shapes of work the server does, against a real server:
//   (a) ingest: 100,000 run-like rows in 1,000-row transactions, as one multi-row INSERT with
//       parameters per transaction, and as one INSERT ... SELECT FROM unnest(arrays);
//   (b) 1,000 point SELECTs by primary key, one after the other (a read that misses the cache);
//   (c) a GROUP BY over 400,000 runs (the aggregate rebuild), read back whole and streamed in
//       1,000-row batches (pg needs `pg-cursor` for that; postgres has `.cursor()`).
//   node --import tsx bench/pgDriver.ts [--url postgres://postgres@127.0.0.1:5432/test] [--rounds 3]
// It creates a scratch database, runs every round with the drivers in alternating order, prints
// the median of the rounds (and every round), and drops the database. Only the driver chosen
// (docs/POSTGRES.md) is a dependency; to compare, install the others without saving them:
//   npm install --no-save postgres@3.4.9 pg-cursor@2.22.1
// A driver that is not installed is skipped with a notice.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    rounds: { type: 'string', default: '3' },
  },
});
const ROUNDS = Number(args.rounds);
const INGEST_ROWS = 100_000;
const BATCH = 1_000;
const SCAN_ROWS = 400_000;
const POINT_READS = 1_000;
const TASKS = 100;
const MINERS = 500;

// --- the rows ---------------------------------------------------------------------------------

const COLUMNS = [
  'competition_id',
  'run_id',
  'task_id',
  'kind',
  'miner_hotkey',
  'validator_id',
  'attempt_no',
  'resolved',
  'tokens_input',
  'tokens_cached_input',
  'tokens_output',
  'time_taken_seconds',
  'agent_steps',
  'rubric_votes',
  'grading',
] as const;
/** The element type of each column, for the unnest form. */
const TYPES = [
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'int4',
  'bool',
  'int8',
  'int8',
  'int8',
  'float8',
  'int4',
];
const UNNEST_TYPES = [...TYPES, 'text', 'text'];
/** Their type oids, which `postgres` needs to send an array of them. */
const OIDS: Record<string, number> = { text: 25, int4: 23, bool: 16, int8: 20, float8: 701 };
type Row = (string | number | boolean | null)[];

/** mulberry32: a uniform integer in [0, m). */
function prng(seed: number): (m: number) => number {
  let a = seed;
  return (m) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * m);
  };
}

/** Run-like rows, deterministic: 1 in 10 a baseline run, 1 in 5 a QnA run with votes and grading. */
function makeRows(prefix: string, n: number): Row[] {
  const next = prng(42);
  const rows: Row[] = [];
  for (let i = 0; i < n; i += 1) {
    const baseline = next(10) === 0;
    const qna = next(5) === 0;
    const votes = qna ? JSON.stringify([{ criterionId: 'c1', votes: [1, 1, 0, 1, 1] }]) : null;
    const grading = qna ? JSON.stringify({ resolved: true, criteria: [{ id: 'c1', met: true, split: false }] }) : null;
    rows.push([
      'bench',
      `${prefix}${i}`,
      `task-${next(TASKS)}`,
      baseline ? 'baseline' : 'miner',
      baseline ? null : `5Miner${next(MINERS)}`,
      'validator-1',
      next(3),
      next(2) === 1,
      100_000 + next(900_000),
      next(50_000),
      1_000 + next(40_000),
      next(3_600_000) / 1000,
      next(200),
      votes,
      grading,
    ]);
  }
  return rows;
}

const MULTI_INSERT = (() => {
  const tuples = Array.from(
    { length: BATCH },
    (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`,
  );
  return `INSERT INTO runs (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
})();
const UNNEST_INSERT = `INSERT INTO runs (${COLUMNS.join(', ')}) SELECT * FROM unnest(${UNNEST_TYPES.map(
  (t, i) => `$${i + 1}::${t}[]`,
).join(', ')})`;
const POINT_SELECT = 'SELECT * FROM runs WHERE seq = $1';
const GROUP_BY = `SELECT competition_id, task_id, miner_hotkey, count(*) AS runs, count(*) FILTER (WHERE resolved) AS resolved,
  sum(tokens_input)::bigint AS input_sum, sum(coalesce(tokens_cached_input, 0))::bigint AS cached_sum,
  sum(tokens_output)::bigint AS output_sum
  FROM runs GROUP BY competition_id, task_id, miner_hotkey`;

const columnsOf = (rows: Row[]) => COLUMNS.map((_, c) => rows.map((r) => r[c]));

const SCHEMA = `
CREATE TABLE tasks (competition_id text NOT NULL, id text NOT NULL, PRIMARY KEY (competition_id, id));
INSERT INTO tasks SELECT 'bench', 'task-' || i FROM generate_series(0, ${TASKS - 1}) AS i;
CREATE TABLE runs (
  seq bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  competition_id text NOT NULL, run_id text NOT NULL, task_id text NOT NULL, kind text NOT NULL,
  miner_hotkey text, validator_id text, attempt_no integer, resolved boolean NOT NULL,
  tokens_input bigint, tokens_cached_input bigint, tokens_output bigint, time_taken_seconds double precision,
  agent_steps integer, rubric_votes text, grading text,
  created_at text NOT NULL DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  UNIQUE (competition_id, run_id),
  FOREIGN KEY (competition_id, task_id) REFERENCES tasks (competition_id, id)
);`;

// --- the drivers, behind one small interface --------------------------------------------------

interface Driver {
  name: string;
  exec(sql: string): Promise<void>;
  /** One transaction per call. */
  insertMulti(rows: Row[]): Promise<unknown>;
  insertUnnest(rows: Row[]): Promise<unknown>;
  /** Point reads; `prepared` false sends the text each time (pg's unnamed statement). */
  point(seq: number, prepared: boolean): Promise<number>;
  fetchAll(sql: string): Promise<number>;
  /** Rows read in batches of `size`, or null when the driver cannot stream. */
  stream(sql: string, size: number): Promise<number | null>;
  close(): Promise<void>;
}

// The drivers are loaded by name so this file type-checks and runs with only one installed.
// The types below are the parts of their APIs used here.
interface PgResult {
  rows: unknown[];
}
interface PgClient {
  connect(): Promise<void>;
  query(q: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<PgResult>;
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

async function load<T>(name: string): Promise<T | null> {
  try {
    return (await import(name)) as T;
  } catch {
    return null;
  }
}

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
    insertMulti: (rows) => tx(() => client.query({ name: 'multi', text: MULTI_INSERT, values: rows.flat() })),
    insertUnnest: (rows) => tx(() => client.query({ name: 'unnest', text: UNNEST_INSERT, values: columnsOf(rows) })),
    point: async (seq, prepared) =>
      (await client.query(prepared ? { name: 'point', text: POINT_SELECT, values: [seq] } : POINT_SELECT, [seq])).rows
        .length,
    fetchAll: async (sql) => (await client.query(sql)).rows.length,
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

async function postgresDriver(url: string): Promise<Driver | null> {
  const mod = await load<PostgresModule>('postgres');
  if (!mod) return null;
  const sql = mod.default(url, { max: 1, onnotice: () => {} });
  return {
    name: 'postgres',
    exec: async (text) => void (await sql.unsafe(text)),
    insertMulti: (rows) => sql.begin((tx) => tx.unsafe(MULTI_INSERT, rows.flat(), { prepare: true })),
    insertUnnest: (rows) => {
      const arrays = columnsOf(rows).map((values, c) => sql.array(values, OIDS[UNNEST_TYPES[c]!]!));
      return sql.begin((tx) => tx.unsafe(UNNEST_INSERT, arrays, { prepare: true }));
    },
    point: async (seq, prepared) => (await sql.unsafe(POINT_SELECT, [seq], { prepare: prepared })).length,
    fetchAll: async (text) => (await sql.unsafe(text)).length,
    stream: async (text, size) => {
      let n = 0;
      for await (const rows of sql.unsafe(text).cursor(size)) n += rows.length;
      return n;
    },
    close: () => sql.end(),
  };
}

// --- the measurements -------------------------------------------------------------------------

type Figures = Record<string, number>;

/** Wall time, and the CPU time of this process: the driver's own cost, less noisy on a shared machine. */
async function time(fn: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function expectCount(d: Driver, expected: number) {
  const n = await d.fetchAll('SELECT 1 FROM runs');
  if (n !== expected) throw new Error(`${d.name}: ${n} rows in runs, expected ${expected}`);
}

async function measure(d: Driver): Promise<Figures> {
  const f: Figures = {};
  const rows = makeRows('r', INGEST_ROWS);
  for (const [label, insert] of [
    ['(a) ingest multi-row', d.insertMulti],
    ['(a) ingest unnest', d.insertUnnest],
  ] as const) {
    await d.exec('TRUNCATE runs RESTART IDENTITY');
    const t = await time(async () => {
      for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
    });
    await expectCount(d, INGEST_ROWS);
    f[`${label}: runs/s`] = Math.round(INGEST_ROWS / (t.wallMs / 1000));
    f[`${label}: client CPU µs/run`] = round1((t.cpuMs * 1000) / INGEST_ROWS);
  }
  // 400k rows for the reads, written by the server itself so every driver reads the same table.
  await d.exec(`INSERT INTO runs (${COLUMNS.join(', ')})
    SELECT competition_id, run_id || '-' || k, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved,
      tokens_input, tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, rubric_votes, grading
    FROM runs, generate_series(1, ${SCAN_ROWS / INGEST_ROWS - 1}) AS k`);
  await d.exec('VACUUM ANALYZE runs');
  await expectCount(d, SCAN_ROWS);
  const next = prng(7);
  const seqs = Array.from({ length: POINT_READS }, () => next(SCAN_ROWS) + 1);
  for (const prepared of [true, false]) {
    const t = await time(async () => {
      for (const seq of seqs) if ((await d.point(seq, prepared)) !== 1) throw new Error(`no run ${seq}`);
    });
    const label = `(b) point read, ${prepared ? 'prepared' : 'unprepared'}`;
    f[`${label}: µs each`] = Math.round((t.wallMs * 1000) / POINT_READS);
    f[`${label}: client CPU µs each`] = Math.round((t.cpuMs * 1000) / POINT_READS);
  }
  const groups = await d.fetchAll(GROUP_BY);
  f['(c) group by: groups'] = groups;
  const server = await time(() => d.fetchAll(`SELECT count(*) FROM (${GROUP_BY}) AS g`));
  f['(c) group by, server only: ms'] = Math.round(server.wallMs);
  const whole = await time(() => d.fetchAll(GROUP_BY));
  f['(c) group by, read whole: ms'] = Math.round(whole.wallMs);
  f['(c) group by, read whole: client CPU ms'] = Math.round(whole.cpuMs);
  let streamed: number | null = null;
  const t = await time(async () => (streamed = await d.stream(GROUP_BY, BATCH)));
  if (streamed !== null) {
    if (streamed !== groups) throw new Error(`${d.name}: streamed ${streamed} groups, expected ${groups}`);
    f['(c) group by, streamed by 1,000: ms'] = Math.round(t.wallMs);
    f['(c) group by, streamed by 1,000: client CPU ms'] = Math.round(t.cpuMs);
  }
  return f;
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;

const dbName = `bench_pgdriver_${process.pid}_${Date.now()}`;
const scratchUrl = (() => {
  const u = new URL(args.url);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const makers = [pgDriver, postgresDriver];
const admin = (await pgDriver(args.url)) ?? (await postgresDriver(args.url));
if (!admin) throw new Error('neither pg nor postgres is installed');
await admin.exec(`CREATE DATABASE ${dbName}`);
const results = new Map<string, Figures[]>();
try {
  const setup = (await makers[0]!(scratchUrl)) ?? (await makers[1]!(scratchUrl));
  await setup!.exec(SCHEMA);
  await setup!.close();
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? makers : [...makers].reverse();
    for (const make of order) {
      const d = await make(scratchUrl);
      if (!d) continue;
      try {
        const f = await measure(d);
        results.set(d.name, [...(results.get(d.name) ?? []), f]);
        console.error(`round ${round + 1} ${d.name}: ${JSON.stringify(f)}`);
      } finally {
        await d.close();
      }
    }
  }
} finally {
  await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.close();
}

for (const name of ['pg', 'postgres']) if (!results.has(name)) console.log(`${name}: not installed, skipped`);
console.log(`\nPostgreSQL drivers, median of ${ROUNDS} rounds (Node ${process.version}); every round in brackets`);
const names = [...results.keys()];
const metrics = [...new Set([...results.values()].flatMap((rs) => rs.flatMap((r) => Object.keys(r))))];
const width = Math.max(...metrics.map((m) => m.length));
console.log(`${''.padEnd(width)}  ${names.map((n) => n.padEnd(30)).join('')}`);
for (const m of metrics) {
  const cells = names.map((n) => {
    const v = (results.get(n) ?? []).map((r) => r[m]).filter((x): x is number => x !== undefined);
    return (v.length ? `${median(v)} [${v.join(', ')}]` : '-').padEnd(30);
  });
  console.log(`${m.padEnd(width)}  ${cells.join('')}`);
}
