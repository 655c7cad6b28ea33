// Migrations 0001 and later on a database made by 0000 alone: runs keep their data, take their old
// rowid as sequence (so listing order is storage order), run counts and aggregates carry over, and
// every read is what a fresh database holding the same runs gives.
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/client.js';
import { tokenSumsSql, tokenWeightParams } from '../../src/db/tokenSql.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('migration');
const open: TestApp[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
afterAll(() => dir.remove());

const WEIGHTS = { input: 1, cachedInput: 0.1, output: 3 };
type Run = [
  runId: string,
  taskId: string,
  hotkey: string | null,
  resolved: 0 | 1,
  tokens: [number, number | null, number] | null,
  validator: string | null,
];
// Inserted in this order: neither sorted by id nor by task, so rowid order is its own.
const RUNS: Run[] = [
  ['z9', 'swe-a', 'm1', 1, [1200, 100, 300], 'v1'],
  ['a1', 'swe-a', null, 1, [900, null, 250], 'v1'],
  ['gone', 'swe-a', 'm2', 0, null, 'v1'],
  ['m5', 'swe-b', 'm2', 1, [400, 0, 90], null],
  ['b2', 'swe-a', 'm2', 0, [2000, 50, 500], 'v1'],
  ['y3', 'swe-b', null, 0, null, 'v1'],
  ['c7', 'swe-b', 'm1', 1, [350, 10, 80], 'v1'],
];

/** A database file as version 1.0 left it: migration 0000 only, data written by hand. */
function makeOldDatabase(path: string): void {
  const db = new Database(path);
  const [init] = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  for (const sql of init!.sql) db.exec(sql);
  db.exec('CREATE TABLE "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  db.prepare('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)').run(init!.hash, init!.folderMillis);
  db.exec(`INSERT INTO competitions (id, name, final_stages) VALUES ('c', 'Old', '["screener_2","evaluation"]')`);
  db.exec(
    `INSERT INTO tasks (competition_id, id, type, stage) VALUES ('c', 'swe-a', 'swebench_verified', 'evaluation'), ('c', 'swe-b', 'swebench_verified', 'evaluation')`,
  );
  db.exec(`INSERT INTO validators (id, name, key_hash) VALUES ('v1', 'old validator', '${'0'.repeat(64)}')`);
  const insert =
    db.prepare(`INSERT INTO runs (competition_id, run_id, task_id, kind, miner_hotkey, validator_id, resolved,
    tokens_input, tokens_cached_input, tokens_output) VALUES ('c', ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const [runId, taskId, hotkey, resolved, tokens, validator] of RUNS) {
    insert.run(
      runId,
      taskId,
      hotkey ? 'miner' : 'baseline',
      hotkey,
      validator,
      resolved,
      tokens?.[0] ?? null,
      tokens?.[1] ?? null,
      tokens?.[2] ?? null,
    );
  }
  db.exec(`DELETE FROM runs WHERE run_id = 'gone'`); // a gap in the rowids, as a deletion left it
  // The aggregates 1.0 kept, from the same SQL as today's rebuild.
  const p = { id: 'c', ...tokenWeightParams(WEIGHTS) };
  db.prepare(
    `INSERT INTO miner_tasks SELECT competition_id, task_id, miner_hotkey, ${tokenSumsSql()} FROM runs
    WHERE competition_id = @id AND kind = 'miner' GROUP BY task_id, miner_hotkey`,
  ).run(p);
  db.prepare(
    `UPDATE tasks SET (baseline_runs, baseline_resolved, baseline_token_count, baseline_input_sum, baseline_cached_sum,
    baseline_output_sum) = (SELECT ${tokenSumsSql()} FROM runs r WHERE r.competition_id = tasks.competition_id AND r.task_id = tasks.id
    AND r.kind = 'baseline'), run_count = (SELECT count(*) FROM runs r WHERE r.task_id = tasks.id) WHERE competition_id = @id`,
  ).run(p);
  db.exec(
    `INSERT INTO miners (competition_id, hotkey) SELECT DISTINCT competition_id, miner_hotkey FROM runs WHERE kind = 'miner'`,
  );
  db.close();
}

const oldRows = (path: string) => {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT rowid AS seq, * FROM runs ORDER BY rowid').all() as Record<string, unknown>[];
  db.close();
  return rows;
};

async function reads(t: TestApp) {
  const get = async (url: string) =>
    (await t.call({ method: 'GET', url: `/v1/competitions/c${url}`, headers: admin })).body;
  const strip = (r: Record<string, unknown>) => ({
    ...r,
    seq: 0,
    createdAt: '',
    validatorId: r.validatorId === null ? null : 'validator',
  });
  return {
    leaderboard: await get('/leaderboard'),
    tasks: await get('/tasks'),
    weights: await get('/weights'),
    a: await get('/tasks/swe-a'),
    b: await get('/tasks/swe-b'),
    m1: await get('/miners/m1'),
    m2: await get('/miners/m2'),
    runs: (await get('/runs')).runs.map(strip),
  };
}

it('keeps every run with its data and its old rowid as sequence, and reads as a fresh database would', async () => {
  const path = join(dir.dir, 'old.db');
  makeOldDatabase(path);
  const before = oldRows(path);
  expect(before.map((r) => r.run_id)).toEqual(['z9', 'a1', 'm5', 'b2', 'y3', 'c7']);

  const migrated = await testApp({ path });
  open.push(migrated);
  expect(migrated.db.$client.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(
    readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length,
  );
  const after = migrated.db.$client
    .prepare(
      `SELECT seq, ${Object.keys(before[0]!)
        .filter((k) => k !== 'seq')
        .join(', ')} FROM runs ORDER BY seq`,
    )
    .all();
  expect(after).toEqual(before);
  expect((await migrated.call({ method: 'GET', url: '/v1/validators', headers: admin })).body.validators).toMatchObject(
    [{ id: 'v1', hotkey: null, revokedAt: null }],
  );

  // A fresh database given the same runs in the same order reads the same.
  const fresh = await testApp();
  open.push(fresh);
  await fresh.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'Old' } });
  await fresh.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: {
      tasks: [
        { id: 'swe-a', type: 'swebench_verified' },
        { id: 'swe-b', type: 'swebench_verified' },
      ],
    },
  });
  const v = await fresh.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'v' } });
  for (const [runId, taskId, hotkey, resolved, tokens, validator] of RUNS.filter((r) => r[0] !== 'gone')) {
    const run = {
      runId,
      taskId,
      kind: hotkey ? 'miner' : 'baseline',
      ...(hotkey ? { minerHotkey: hotkey } : {}),
      resolved: resolved === 1,
      tokens: tokens
        ? { input: tokens[0], ...(tokens[1] === null ? {} : { cachedInput: tokens[1] }), output: tokens[2] }
        : null,
    };
    const res = await fresh.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: validator ? { authorization: `Bearer ${v.body.apiKey}` } : admin,
      payload: { runs: [run] },
    });
    expect(res.status).toBe(200);
  }
  expect(await reads(migrated)).toEqual(await reads(fresh));

  // New writes continue the sequence past the old rowids; a deletion is kept with its sequence.
  const res = await migrated.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: admin,
    payload: { runs: [{ runId: 'new', taskId: 'swe-b', kind: 'baseline', resolved: true }] },
  });
  expect(res.status).toBe(200);
  const maxOld = Math.max(...before.map((r) => r.seq as number));
  expect((await migrated.call({ method: 'GET', url: '/v1/competitions/c/runs/new' })).body.seq).toBeGreaterThan(maxOld);
  expect((await migrated.call({ method: 'DELETE', url: '/v1/competitions/c/runs/z9', headers: admin })).status).toBe(
    200,
  );
  expect(migrated.db.$client.prepare(`SELECT seq FROM deleted_runs WHERE run_id = 'z9'`).pluck().get()).toBe(
    before[0]!.seq,
  );
});
