// The runs' reference to their task on PostgreSQL (migrations/pg/0011_runs_task_guard.sql), held by
// triggers since issue 41 took the per-row foreign key away: a writer other than the server, with
// any statement (one row, many, INSERT ... SELECT, COPY), cannot store a run whose task does not
// exist, nor delete, truncate or rename a task while runs name it; a concurrent delete and insert
// cannot leave a run without its task in either order, and a task is not removed under an
// isolation level whose snapshot would miss the runs of the insert it waited for. Each refusal is SQLSTATE 23503, as the
// foreign key's was, and stores nothing. The server's own refusal of an unknown task (a 404 before
// any insert) is test/http/idempotency.test.ts's, on both engines.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { runsTaskGuard } from '../../src/db/pg/schema.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgRunsTaskGuard.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

/** The guard's refusal: the foreign key's SQLSTATE, and the guard's name where pg reports a constraint. */
const REFUSED = { code: '23503', constraint: 'runs_task_guard' };

const run = (runId: string, taskId: string) => `('c', '${runId}', '${taskId}', 'miner', 'm', true)`;
const INSERT = 'INSERT INTO runs (competition_id, run_id, task_id, kind, miner_hotkey, resolved) VALUES ';

describe.runIf(server.available)('the runs -> tasks guard on PostgreSQL', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
  const runIds = async () =>
    (await pool.query<{ run_id: string }>('SELECT run_id FROM runs ORDER BY seq')).rows.map((r) => r.run_id);

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_runs_task_guard');
    await migratePostgres(scratch.url);
    pool = new pg.Pool({ connectionString: scratch.url, max: 3 });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });
  beforeEach(async () => {
    await pool.query('TRUNCATE runs, competitions RESTART IDENTITY CASCADE');
    await pool.query(`INSERT INTO competitions (id, name, final_stages) VALUES ('c', 'C', '["evaluation"]'),
      ('d', 'D', '["evaluation"]')`);
    await pool.query(`INSERT INTO tasks (competition_id, id, type, stage) VALUES
      ('c', 't1', 'swebench_verified', 'evaluation'), ('c', 't2', 'swebench_verified', 'evaluation'),
      ('d', 't3', 'swebench_verified', 'evaluation')`);
  });

  it('is triggers on runs and tasks, in place of the foreign key', async () => {
    const { rows } = await pool.query<{ table: string; name: string }>(
      `SELECT tgrelid::regclass::text AS table, tgname AS name FROM pg_trigger
       WHERE NOT tgisinternal AND tgenabled <> 'D' ORDER BY 1, 2`,
    );
    const expected = Object.entries(runsTaskGuard.triggers).flatMap(([table, names]) =>
      names.map((name) => ({ table, name })),
    );
    expect(rows).toEqual(expected.sort((a, b) => `${a.table} ${a.name}`.localeCompare(`${b.table} ${b.name}`)));
    expect(
      await count(`SELECT count(*) AS n FROM pg_constraint WHERE conrelid = 'runs'::regclass AND contype = 'f'`),
    ).toBe(0);
  });

  it('refuses a run of a task that does not exist, in one row or among many, storing none', async () => {
    await pool.query(INSERT + run('ok', 't1'));
    await expect(pool.query(INSERT + run('r1', 'missing'))).rejects.toMatchObject(REFUSED);
    // The task exists, in another competition: the key is the pair.
    await expect(pool.query(INSERT + run('r2', 't3'))).rejects.toMatchObject(REFUSED);
    const many = [run('r3', 't1'), run('r4', 't2'), run('r5', 'missing'), run('r6', 't1')].join(', ');
    await expect(pool.query(INSERT + many)).rejects.toMatchObject({
      ...REFUSED,
      message: expect.stringContaining('(c, missing)'),
      detail: 'Key (competition_id, task_id)=(c, missing) is not present in table "tasks".',
    });
    // The server's statement: INSERT ... SELECT FROM unnest, inside a WITH.
    await expect(
      pool.query(
        `WITH r AS (INSERT INTO runs (competition_id, run_id, task_id, kind, resolved)
           SELECT 'c', u.run_id, u.task_id, 'baseline', false FROM unnest($1::text[], $2::text[]) AS u(run_id, task_id)
           RETURNING seq) SELECT count(*) FROM r`,
        [
          ['u1', 'u2'],
          ['t2', 'nope'],
        ],
      ),
    ).rejects.toMatchObject(REFUSED);
    expect(await runIds()).toEqual(['ok']);
    await pool.query(INSERT + [run('r7', 't1'), run('r8', 't2')].join(', '));
    expect(await runIds()).toEqual(['ok', 'r7', 'r8']);
  });

  it.runIf(spawnSync('psql', ['--version']).status === 0)('refuses a COPY into runs naming a missing task', () => {
    const copy = (rows: string) =>
      spawnSync(
        'psql',
        [
          scratch.url,
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          '\\copy runs (competition_id, run_id, task_id, kind, resolved) FROM STDIN WITH (FORMAT csv)',
        ],
        { input: rows, encoding: 'utf8' },
      );
    const refused = copy('c,k1,t1,baseline,true\nc,k2,missing,baseline,true\n');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('no task (competition_id, id)=(c, missing)');
    const copied = copy('c,k3,t1,baseline,true\nc,k4,t2,baseline,false\n');
    expect(copied.stderr).toBe('');
    expect(copied.status).toBe(0);
  });

  it('refuses to move a run to a task that does not exist', async () => {
    await pool.query(INSERT + [run('r1', 't1'), run('r2', 't2')].join(', '));
    await expect(pool.query(`UPDATE runs SET task_id = 'missing' WHERE run_id = 'r1'`)).rejects.toMatchObject(REFUSED);
    await expect(pool.query(`UPDATE runs SET competition_id = 'd' WHERE run_id = 'r2'`)).rejects.toMatchObject(REFUSED);
    await pool.query(`UPDATE runs SET task_id = 't2' WHERE run_id = 'r1'`);
    // Setting the key to itself, and updating other columns, are no move.
    await pool.query(`UPDATE runs SET task_id = task_id, resolved = false`);
    expect((await pool.query('SELECT run_id, task_id FROM runs ORDER BY seq')).rows).toEqual([
      { run_id: 'r1', task_id: 't2' },
      { run_id: 'r2', task_id: 't2' },
    ]);
  });

  it('refuses to delete, truncate or rename a task that runs name; a task without runs goes', async () => {
    await pool.query(INSERT + [run('r1', 't1'), run('r2', 't1')].join(', '));
    await expect(pool.query(`DELETE FROM tasks WHERE competition_id = 'c'`)).rejects.toMatchObject({
      ...REFUSED,
      detail: 'Key (competition_id, id)=(c, t1) is still referenced from table "runs".',
    });
    // Through the cascade from competitions, as the foreign key refused it.
    await expect(pool.query(`DELETE FROM competitions WHERE id = 'c'`)).rejects.toMatchObject(REFUSED);
    await expect(pool.query(`UPDATE tasks SET id = 't9' WHERE id = 't1'`)).rejects.toMatchObject(REFUSED);
    await expect(pool.query(`UPDATE tasks SET competition_id = 'd' WHERE id = 't1'`)).rejects.toMatchObject(REFUSED);
    await expect(pool.query('TRUNCATE tasks CASCADE')).rejects.toMatchObject(REFUSED);
    expect(await count('SELECT count(*) AS n FROM tasks')).toBe(3);
    // A task no run names is renamed or deleted; aggregates are updated (never a key): all pass.
    await pool.query(`UPDATE tasks SET id = 't4' WHERE id = 't2'`);
    await pool.query(`DELETE FROM tasks WHERE id IN ('t3', 't4')`);
    await pool.query(`UPDATE tasks SET baseline_runs = baseline_runs + 1`);
    // Runs deleted first, or truncated with the tasks, as with the foreign key.
    await pool.query(`DELETE FROM runs WHERE run_id = 'r1'`);
    await expect(pool.query(`DELETE FROM tasks WHERE id = 't1'`)).rejects.toMatchObject(REFUSED);
    await pool.query('TRUNCATE tasks, runs CASCADE');
    expect(await count('SELECT count(*) AS n FROM tasks')).toBe(0);
  });

  it('leaves no run without its task when a delete and an insert race, in either order', async () => {
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      // The insert first: the delete waits for it (the task is locked FOR KEY SHARE), then sees its run.
      await a.query('BEGIN');
      await a.query(INSERT + run('r1', 't1'));
      const deleting = b.query(`DELETE FROM tasks WHERE id = 't1'`).then(
        () => null,
        (err: unknown) => err,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await a.query('COMMIT');
      expect(await deleting).toMatchObject(REFUSED);

      // The delete first: the insert waits for it, then finds the task gone.
      await b.query('BEGIN');
      await b.query(`DELETE FROM tasks WHERE id = 't2'`);
      const inserting = a.query(INSERT + run('r2', 't2')).then(
        () => null,
        (err: unknown) => err,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await b.query('COMMIT');
      expect(await inserting).toMatchObject(REFUSED);
    } finally {
      a.release();
      b.release();
    }
    expect(await runIds()).toEqual(['r1']);
    expect(await count(`SELECT count(*) AS n FROM tasks WHERE id = 't1'`)).toBe(1);
  });

  it('refuses to remove tasks under REPEATABLE READ, whose snapshot would miss runs committed meanwhile', async () => {
    const a = await pool.connect();
    try {
      const refused = { code: '0A000', constraint: 'runs_task_guard' };
      for (const level of ['REPEATABLE READ', 'SERIALIZABLE']) {
        for (const remove of [
          `DELETE FROM tasks WHERE id = 't3'`,
          `UPDATE tasks SET id = 't4' WHERE id = 't3'`,
          'TRUNCATE tasks, runs CASCADE',
        ]) {
          await a.query(`BEGIN ISOLATION LEVEL ${level}`);
          await expect(a.query(remove), remove).rejects.toMatchObject(refused);
          await a.query('ROLLBACK');
        }
        // Nothing removed: no refusal.
        await a.query(`BEGIN ISOLATION LEVEL ${level}`);
        await a.query(`DELETE FROM tasks WHERE id = 'none'`);
        await a.query(`UPDATE tasks SET baseline_runs = 1`);
        await a.query('COMMIT');
      }
    } finally {
      a.release();
    }
    await pool.query(`DELETE FROM tasks WHERE id = 't3'`);
    expect(await count('SELECT count(*) AS n FROM tasks')).toBe(2);
  });
});
