// The storage floors on PostgreSQL (issue 15), the counterparts of floors.ts and measure.ts's
// floorScan: what it costs PostgreSQL alone to store the benchmark's runs durably, to delete runs
// one by one, and to compute the per-(task, miner) inputs with one GROUP BY. The inserts and the
// deletes go into a scratch database of their own, built by the real migrations (migrations/pg)
// with the runs' reference to tasks dropped, as the SQLite floor's runs table has none; the scan
// reads the server's own database.
import pg from 'pg';
import { migratePostgres } from '../src/db/pg/migrate.js';
import type { Run } from './generate.js';
import { INSERT_RUNS, RUN_COLUMNS } from '../src/db/pg/runs.js';
import { withArrayLiterals } from '../src/db/pg/arrayLiteral.js';
import { stats, type Floor } from './measure.js';
import type { DeleteFloor, InsertFloor } from './floors.js';

const VALIDATOR_ID = '00000000-0000-4000-8000-000000000000';

/** The floor inserts with the server's own statement (INSERT_RUNS, src/db/pg/runs.ts): the same work without the server. */
const COLUMN_COUNT = RUN_COLUMNS.split(',').length;

/** A batch as 15 column arrays, as the server stores it (grading left out: the server derives it from QnA votes). */
function columnsOf(competitionId: string, runs: Run[]): unknown[][] {
  const cols: unknown[][] = Array.from({ length: COLUMN_COUNT }, () => []);
  for (const r of runs) {
    const row = [
      competitionId,
      r.runId,
      r.taskId,
      r.kind,
      r.minerHotkey ?? null,
      VALIDATOR_ID,
      r.attemptNo,
      r.resolved === true,
      r.tokens?.input ?? null,
      r.tokens?.cachedInput ?? null,
      r.tokens?.output ?? null,
      r.timeTakenSeconds,
      r.agentSteps,
      r.rubricVotes ? JSON.stringify(r.rubricVotes) : null,
      null,
    ];
    row.forEach((v, i) => cols[i]!.push(v));
  }
  return cols;
}

/** One connection, commits durable: synchronous_commit on whatever the server's default. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'swe-scoring-bench-floor' });
  await client.connect();
  await client.query('SET synchronous_commit = on');
  return client;
}

/**
 * The migrated schema, less the runs' reference to tasks (the SQLite floor's runs table has none,
 * and the floor inserts runs of no task): its foreign key before migrations/pg/0011, its triggers
 * since (a base build's server may be compared with the floor of this one).
 */
export async function prepareFloorDatabase(url: string): Promise<void> {
  await migratePostgres(url);
  const client = await connect(url);
  try {
    await client.query(`DO $$ DECLARE c text; BEGIN
      FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'runs'::regclass AND contype = 'f' LOOP
        EXECUTE format('ALTER TABLE runs DROP CONSTRAINT %I', c);
      END LOOP;
      FOR c IN SELECT tgname FROM pg_trigger WHERE tgrelid = 'runs'::regclass AND NOT tgisinternal LOOP
        EXECUTE format('DROP TRIGGER %I ON runs', c);
      END LOOP; END $$`);
  } finally {
    await client.end();
  }
}

/** Bytes PostgreSQL holds for the database, in MB. */
export async function databaseMb(url: string): Promise<number> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Math.round(Number(rows[0]!.n) / 1e6);
  } finally {
    await client.end();
  }
}

/**
 * The batches inserted straight into the floor database (prepareFloorDatabase first), one
 * INSERT ... SELECT FROM unnest a batch, each its own transaction, committed with
 * synchronous_commit on. Each body is parsed and turned into arrays before the clock starts.
 */
export async function pgRawInsert(url: string, competitionId: string, bodies: string[]): Promise<InsertFloor> {
  const client = await connect(url);
  try {
    await client.query('TRUNCATE runs, deleted_runs RESTART IDENTITY');
    let ms = 0;
    let runs = 0;
    for (const body of bodies) {
      const batch = (JSON.parse(body) as { runs: Run[] }).runs;
      const columns = columnsOf(competitionId, batch);
      const start = performance.now();
      // The arrays as the server sends them (src/db/pg/arrayLiteral.ts), not pg's slower encoding:
      // the floor does no more work than the server's own statement needs.
      const values = withArrayLiterals(columns);
      const res = await client.query({ name: 'floor-insert', text: INSERT_RUNS, values });
      ms += performance.now() - start;
      if (res.rowCount !== batch.length) throw new Error(`floor: inserted ${res.rowCount} of ${batch.length}`);
      runs += batch.length;
    }
    return {
      runs,
      transactions: bodies.length,
      seconds: Math.round(ms / 10) / 100,
      runsPerSecond: Math.round(runs / (ms / 1000)),
      databaseMb: await databaseMb(url),
    };
  } finally {
    await client.end();
  }
}

/**
 * Deletes `kept` and `plain` (different run ids), one durable transaction a run, alternately one
 * of each: `kept` copies the row to deleted_runs under the next number of the run sequence first
 * (the server's design, as in floors.ts's rawDelete), `plain` is a plain DELETE.
 */
export async function pgRawDelete(
  url: string,
  competitionId: string,
  kept: string[],
  plain: string[],
): Promise<DeleteFloor> {
  const client = await connect(url);
  try {
    const cols = RUN_COLUMNS;
    const keep = `WITH gone AS (DELETE FROM runs WHERE competition_id = $1 AND run_id = $2 RETURNING *)
      INSERT INTO deleted_runs (seq, ${cols}, created_at, deleted_seq)
      SELECT seq, ${cols}, created_at, nextval(pg_get_serial_sequence('runs', 'seq')) FROM gone`;
    const remove = 'DELETE FROM runs WHERE competition_id = $1 AND run_id = $2';
    const ms = { kept: 0, plain: 0 };
    const time = async (kind: 'kept' | 'plain', name: string, text: string, id: string | undefined) => {
      if (id === undefined) return;
      const start = performance.now();
      const res = await client.query({ name, text, values: [competitionId, id] });
      ms[kind] += performance.now() - start;
      if (res.rowCount !== 1) throw new Error(`floor: run ${id} not found`);
    };
    for (let i = 0; i < Math.max(kept.length, plain.length); i++) {
      await time('kept', 'floor-keep', keep, kept[i]);
      await time('plain', 'floor-delete', remove, plain[i]);
    }
    return {
      deletes: kept.length,
      keptPerSecond: Math.round(kept.length / (ms.kept / 1000)),
      plainPerSecond: Math.round(plain.length / (ms.plain / 1000)),
    };
  } finally {
    await client.end();
  }
}

/**
 * floorScan on PostgreSQL: the same GROUP BY task_id, miner_hotkey with the SPEC 2 sums, on the
 * server's database over a connection of its own, after ANALYZE; one warm-up, then `repeats`
 * timed, rows read whole (as the SQLite floor reads them).
 */
export async function pgFloorScan(
  url: string,
  competitionId: string,
  w: { input: number; cachedInput: number; output: number },
  repeats = 5,
): Promise<Floor> {
  const client = await connect(url);
  try {
    // The weights are parameters, as the SQLite floor binds them; the casts keep the sums exact-typed.
    const weighted =
      'tokens_input * $2::float8 + coalesce(tokens_cached_input, 0) * $3::float8 + tokens_output * $4::float8';
    const valid = `(tokens_input IS NOT NULL AND tokens_output IS NOT NULL AND tokens_input >= 0 AND tokens_output >= 0
      AND coalesce(tokens_cached_input, 0) >= 0 AND ${weighted} > 0)`;
    const sql = `SELECT task_id, miner_hotkey, count(*), count(*) FILTER (WHERE resolved),
        count(*) FILTER (WHERE ${valid}), sum(CASE WHEN ${valid} THEN ${weighted} ELSE 0 END),
        count(*) FILTER (WHERE resolved AND ${valid}), sum(CASE WHEN resolved AND ${valid} THEN ${weighted} ELSE 0 END)
      FROM runs WHERE competition_id = $1 GROUP BY task_id, miner_hotkey`;
    const values = [competitionId, w.input, w.cachedInput, w.output];
    const scan = () => client.query({ name: 'floor-scan', text: sql, values, rowMode: 'array' });
    // Fresh statistics, as autovacuum would have them by now: the floor is PostgreSQL's best plan.
    await client.query('ANALYZE runs');
    const count = await client.query<{ n: string }>('SELECT count(*) AS n FROM runs WHERE competition_id = $1', [
      competitionId,
    ]);
    let groups = (await scan()).rowCount ?? 0;
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const start = performance.now();
      groups = (await scan()).rowCount ?? 0;
      times.push(performance.now() - start);
    }
    const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).rows
      .map((r) => r['QUERY PLAN'].trim())
      .join('; ');
    return { ...stats(times), groups, rows: Number(count.rows[0]!.n), plan };
  } finally {
    await client.end();
  }
}
