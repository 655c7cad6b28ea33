// Which PostgreSQL driver (issue 15): `pg` (node-postgres) against `postgres` (porsager), on the
// three shapes of work the server does, against a real server:
//   (a) ingest: 100,000 run-like rows in 1,000-row transactions, as one multi-row INSERT with
//       parameters per transaction, and as one INSERT ... SELECT FROM unnest(arrays);
//   (b) 1,000 point SELECTs by primary key, one after the other (a read that misses the cache);
//   (c) a GROUP BY over 400,000 runs (the aggregate rebuild), read back whole and streamed in
//       1,000-row batches (pg needs `pg-cursor` for that; postgres has `.cursor()`), beside the
//       server's own execution time (EXPLAIN ANALYZE).
// Each phase gives its wall time and this process's CPU time: the driver's own cost, and the
// steadier figure on a shared machine.
//   node --import tsx bench/pgDriver.ts [--url postgres://postgres@127.0.0.1:5432/test] [--rounds 3]
// It creates a scratch database, runs every round with the drivers in alternating order, prints
// the median of the rounds (and every round), and drops the database. Only the driver chosen
// (docs/POSTGRES.md) is a dependency; to compare, install the others without saving them:
//   npm install --no-save postgres@3.4.9 pg-cursor@2.22.1
// A driver that is not installed is skipped with a notice.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DRIVERS, type Driver } from './pgDrivers.js';

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

// --- the measurements -------------------------------------------------------------------------

type Figures = Record<string, number>;

/** Wall time, and the CPU time of this process: the driver's own cost, less noisy on a shared machine. */
async function time<T>(fn: () => Promise<T>): Promise<{ wallMs: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, value };
}

async function expectCount(d: Driver, expected: number) {
  const n = (await d.rows('SELECT 1 FROM runs')).length;
  if (n !== expected) throw new Error(`${d.name}: ${n} rows in runs, expected ${expected}`);
}

async function measure(d: Driver): Promise<Figures> {
  const f: Figures = {};
  const rows = makeRows('r', INGEST_ROWS);
  const batches = Array.from({ length: INGEST_ROWS / BATCH }, (_, i) => rows.slice(i * BATCH, (i + 1) * BATCH));
  for (const [label, insert] of [
    ['(a) ingest multi-row', (b: Row[]) => d.insert('multi', MULTI_INSERT, b.flat())],
    ['(a) ingest unnest', (b: Row[]) => d.insertArrays('unnest', UNNEST_INSERT, columnsOf(b), UNNEST_TYPES)],
  ] as const) {
    await d.exec('TRUNCATE runs RESTART IDENTITY');
    const t = await time(async () => {
      for (const batch of batches) await insert(batch);
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
      for (const seq of seqs) {
        if ((await d.count('point', POINT_SELECT, [seq], prepared)) !== 1) throw new Error(`no run ${seq}`);
      }
    });
    const label = `(b) point read, ${prepared ? 'prepared' : 'unprepared'}`;
    f[`${label}: µs each`] = Math.round((t.wallMs * 1000) / POINT_READS);
    f[`${label}: client CPU µs each`] = Math.round((t.cpuMs * 1000) / POINT_READS);
  }
  const groups = (await d.rows(GROUP_BY)).length;
  f['(c) group by: groups'] = groups;
  // The server's own share: the query run whole, its rows not sent.
  const plan = (await d.rows(`EXPLAIN (ANALYZE, TIMING OFF) ${GROUP_BY}`)).map((r) => String(Object.values(r)[0]));
  const executed = plan.map((line) => /^Execution Time: ([\d.]+) ms/.exec(line)).find((m) => m);
  if (!executed) throw new Error(`no execution time in ${plan.join('\n')}`);
  f['(c) group by, server execution: ms'] = Math.round(Number(executed[1]));
  const whole = await time(() => d.rows(GROUP_BY));
  f['(c) group by, read whole: ms'] = Math.round(whole.wallMs);
  f['(c) group by, read whole: client CPU ms'] = Math.round(whole.cpuMs);
  const t = await time(() => d.stream(GROUP_BY, BATCH));
  if (t.value !== null) {
    if (t.value !== groups) throw new Error(`${d.name}: streamed ${t.value} groups, expected ${groups}`);
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
const admin = (await DRIVERS[0]!(args.url)) ?? (await DRIVERS[1]!(args.url));
if (!admin) throw new Error('neither pg nor postgres is installed');
await admin.exec(`CREATE DATABASE ${dbName}`);
const results = new Map<string, Figures[]>();
try {
  const setup = (await DRIVERS[0]!(scratchUrl)) ?? (await DRIVERS[1]!(scratchUrl));
  await setup!.exec(SCHEMA);
  await setup!.close();
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? DRIVERS : [...DRIVERS].reverse();
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
const cellWidth = 44;
console.log(`${''.padEnd(width)}  ${names.map((n) => n.padEnd(cellWidth)).join('')}`);
for (const m of metrics) {
  const cells = names.map((n) => {
    const v = (results.get(n) ?? []).map((r) => r[m]).filter((x): x is number => x !== undefined);
    return (v.length ? `${median(v)} [${v.join(', ')}]` : '-').padEnd(cellWidth);
  });
  console.log(`${m.padEnd(width)}  ${cells.join('')}`);
}
