// Ingest through the PostgreSQL store's runs.insertMany (src/db/pg/runs.ts): 1,000-run batches,
// each in its own competition-scoped transaction (as the ingest service writes them), into a
// scratch database (created and dropped) on the server at --url. Prints runs/s per round and the
// median. Run ids, tasks and miners are seeded, so a round replays exactly.
//
//   node --import tsx bench/pgIngest.ts [--batches 40] [--rounds 3] [--url postgres://...]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migratePostgres } from '../src/db/pg/migrate.js';
import { createPool } from '../src/db/pg/client.js';
import { createPgStore } from '../src/db/pg/store.js';
import type { RunRecord } from '../src/db/runs.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    batches: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
  },
});
const BATCH = 1000;
const TASKS = 200;
const MINERS = 50;

const admin = new pg.Client({ connectionString: values.url });
await admin.connect();
const dbName = `swe_bench_pg_ingest_${randomBytes(4).toString('hex')}`;
await admin.query(`CREATE DATABASE ${dbName}`);
try {
  const url = new URL(values.url);
  url.pathname = `/${dbName}`;
  await migratePostgres(url.toString());
  const store = createPgStore(createPool(url.toString()));
  const w = { input: 1, cachedInput: 0.1, output: 3 };
  let seed = 1;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const rates: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const c = `bench-${round}`;
    await store.competitions.upsert(c, { name: c });
    await store.tasks.upsertMany(
      c,
      Array.from({ length: TASKS }, (_, i) => ({
        id: `task-${i}`,
        type: 'swebench_verified' as const,
        stage: 'evaluation' as const,
        complexity: null,
        plannedRuns: null,
        qna: null,
        rubric: [],
      })),
    );
    const batches: RunRecord[][] = Array.from({ length: Number(values.batches) }, (_, b) => {
      const hotkey = `miner-${rand(MINERS)}`;
      return Array.from({ length: BATCH }, (_, i) => ({
        competitionId: c,
        runId: `run-${b}-${i}`,
        taskId: `task-${rand(TASKS)}`,
        kind: rand(10) === 0 ? ('baseline' as const) : ('miner' as const),
        minerHotkey: hotkey,
        validatorId: `val-${rand(5)}`,
        attemptNo: 1,
        resolved: rand(2) === 0,
        tokens: { input: 10_000 + rand(100_000), cachedInput: rand(5000), output: 1000 + rand(20_000) },
        timeTakenSeconds: 1 + rand(600),
        agentSteps: rand(100),
        rubricVotes: null,
        criteria: null,
      })).map((r) => (r.kind === 'baseline' ? { ...r, minerHotkey: null } : r));
    });
    const start = performance.now();
    const cpu = process.cpuUsage();
    for (const batch of batches) {
      await store.transaction((tx) => tx.runs.insertMany(batch, w), { competitionId: c });
    }
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    rates.push((batches.length * BATCH) / seconds);
    console.log(
      `round ${round + 1}: ${Math.round(rates[rates.length - 1]!)} runs/s (${batches.length} batches of ${BATCH}), ` +
        `this process's CPU ${((used.user + used.system) / 1000 / batches.length).toFixed(2)} ms a batch`,
    );
  }
  rates.sort((a, b) => a - b);
  console.log(`median: ${Math.round(rates[Math.floor(rates.length / 2)]!)} runs/s`);
  await store.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
