// What the runs' reference to their task costs PostgreSQL's insert (issue 41): the probe's batches
// (every third reference batch, 1,000 runs each) inserted with the server's own statement
// (INSERT_RUNS, src/db/pg/runs.ts) into three scratch databases, each migrated and holding the
// reference competition's tasks, batch by batch in turns (the order reversed every batch):
//   fk     the per-row foreign key of migrations/pg before 0011, put back, the triggers dropped
//   guard  0011's statement-level triggers (runsTaskGuard, src/db/pg/schema/scoring.ts)
//   none   neither
// Each insert runs under EXPLAIN (ANALYZE): PostgreSQL's own execution time and its triggers'
// (the foreign key's RI trigger, or the guard's), printed as median and p10-p90 of the batches.
//   node --import tsx bench/pgRunsReference.ts [--batches N]
// The databases (PG_TEST_URL's server, as the probe's) are dropped at the end.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SIZES, buildCompetition, runBatches, type Run } from './generate.js';
import { INSERT_RUNS, RUN_COLUMNS } from '../src/db/pg/runs.js';
import { withArrayLiterals } from '../src/db/pg/arrayLiteral.js';
import { migratePostgres } from '../src/db/pg/migrate.js';
import { runsTaskGuard } from '../src/db/pg/schema.js';
import { createScratchDatabase, type ScratchDatabase } from '../test/support/postgres.js';

const { values } = parseArgs({ options: { batches: { type: 'string', default: '120' } } });
const c = buildCompetition(SIZES.reference, 1);
const bodies = runBatches(c, 1000)
  .bodies.filter((_, i) => i % 3 === 0)
  .slice(0, Number(values.batches));
const VARIANTS = ['fk', 'guard', 'none'] as const;
type Variant = (typeof VARIANTS)[number];
const VALIDATOR_ID = '00000000-0000-4000-8000-000000000000';
const COLUMN_COUNT = RUN_COLUMNS.split(',').length;

async function prepare(v: Variant): Promise<{ db: ScratchDatabase; client: pg.Client }> {
  const db = await createScratchDatabase(`runs_reference_${v}`);
  await migratePostgres(db.url);
  const client = new pg.Client({ connectionString: db.url, application_name: 'swe-scoring-bench-runs-reference' });
  await client.connect();
  await client.query(`INSERT INTO competitions (id, name, final_stages) VALUES ('bench', 'bench', '["evaluation"]')`);
  await client.query(
    `INSERT INTO tasks (competition_id, id, type, stage)
     SELECT 'bench', u.id, u.type, 'evaluation' FROM unnest($1::text[], $2::text[]) AS u(id, type)`,
    [c.tasks.map((t) => t.id), c.tasks.map((t) => t.type)],
  );
  if (v !== 'guard')
    for (const [table, names] of Object.entries(runsTaskGuard.triggers))
      for (const name of names) await client.query(`DROP TRIGGER ${name} ON ${table}`);
  if (v === 'fk')
    await client.query(`ALTER TABLE runs ADD CONSTRAINT runs_competition_id_task_id_tasks_competition_id_id_fk
      FOREIGN KEY (competition_id, task_id) REFERENCES tasks (competition_id, id)`);
  await client.query('SET synchronous_commit = on');
  return { db, client };
}

/** A batch as the server's statement takes it (grading and the judge's fields left null). */
function parameters(body: string): unknown[] {
  const cols: unknown[][] = Array.from({ length: COLUMN_COUNT }, () => []);
  for (const r of (JSON.parse(body) as { runs: Run[] }).runs) {
    const row = [
      'bench',
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
      null,
      null,
    ];
    row.forEach((value, k) => cols[k]!.push(value));
  }
  return withArrayLiterals(cols)!;
}

interface Plan {
  'Execution Time': number;
  Triggers?: { Time: number }[];
}

const prepared = new Map<Variant, { db: ScratchDatabase; client: pg.Client }>();
const times = new Map<Variant, { execution: number[]; triggers: number[] }>();
try {
  for (const v of VARIANTS) {
    prepared.set(v, await prepare(v));
    times.set(v, { execution: [], triggers: [] });
  }
  for (const [i, body] of bodies.entries()) {
    const values = parameters(body);
    for (const v of i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const { rows } = await prepared
        .get(v)!
        .client.query<{ 'QUERY PLAN': Plan[] }>({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${INSERT_RUNS}`, values });
      const plan = rows[0]!['QUERY PLAN'][0]!;
      times.get(v)!.execution.push(plan['Execution Time']);
      times.get(v)!.triggers.push((plan.Triggers ?? []).reduce((sum, t) => sum + t.Time, 0));
    }
  }
} finally {
  for (const { db, client } of prepared.values()) {
    await client.end();
    await db.drop();
  }
}
const at = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) * p)]!.toFixed(2);
const spread = (a: number[]) => `${at(a, 0.5)} ms (p10-p90 ${at(a, 0.1)}-${at(a, 0.9)})`;
for (const [v, { execution, triggers }] of times)
  console.log(`${v}: execution ${spread(execution)}, triggers ${spread(triggers)}, ${execution.length} batches`);
