// The benchmark's PostgreSQL floors (bench/pgFloors.ts, issue 15) on a real server through the real
// migrations: every run of the small competition stored, the GROUP BY scan finds the same runs and
// (task, miner) groups as the SQLite floor over the same runs, and the delete floor keeps exactly
// the runs it should in deleted_runs, each under a new sequence number.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIZES, buildCompetition, runBatches, type Run } from '../../bench/generate.js';
import { rawInsert } from '../../bench/floors.js';
import { floorScan } from '../../bench/measure.js';
import { pgFloorScan, pgRawDelete, pgRawInsert, prepareFloorDatabase } from '../../bench/pgFloors.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

const server = await testPostgres('test/db/benchPgFloors.test.ts');
const WEIGHTS = { input: 1, cachedInput: 0.1, output: 3 };

it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

describe.runIf(server.available)('benchmark floors on PostgreSQL', () => {
  let db: ScratchDatabase;
  const c = buildCompetition(SIZES.small, 1);
  const { bodies, total } = runBatches(c, 1000);
  const runs = bodies.flatMap((b) => (JSON.parse(b) as { runs: Run[] }).runs);

  beforeAll(async () => {
    db = await createScratchDatabase('bench_floors');
    await prepareFloorDatabase(db.url);
  });
  afterAll(async () => {
    await db?.drop();
    removeTempDirs();
  });

  async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as T[];
    } finally {
      await client.end();
    }
  }

  it('stores every run, once, on each pass', async () => {
    for (let pass = 0; pass < 2; pass++) {
      const f = await pgRawInsert(db.url, 'bench', bodies);
      expect(f).toMatchObject({ runs: total, transactions: bodies.length });
      expect(f.runsPerSecond).toBeGreaterThan(0);
      const [row] = await query<{ n: number; resolved: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE resolved)::int AS resolved FROM runs WHERE competition_id = 'bench'`,
      );
      expect(row).toEqual({ n: total, resolved: runs.filter((r) => r.resolved).length });
    }
  });

  it('scans the same runs into the same groups as the SQLite floor', async () => {
    const dir = tempDir('bench-floors');
    rawInsert(dir.dir, 'bench', bodies);
    const sqlite = floorScan(`${dir.dir}/floor-sequence.db`, 'bench', WEIGHTS, 1);
    const scan = await pgFloorScan(db.url, 'bench', WEIGHTS, 2);
    const groups = new Set(runs.map((r) => `${r.taskId}\u0000${r.minerHotkey ?? ''}`)).size;
    expect(scan).toMatchObject({ rows: total, groups, samples: 2 });
    expect(sqlite).toMatchObject({ rows: total, groups });
    expect(scan.plan).toMatch(/Aggregate/);
  });

  it('deletes one run a transaction, the kept ones copied to deleted_runs under new sequence numbers', async () => {
    const ids = runs.slice(0, 20).map((r) => r.runId);
    const [top] = await query<{ max: number }>('SELECT max(seq)::int AS max FROM runs');
    const f = await pgRawDelete(db.url, 'bench', ids.slice(0, 10), ids.slice(10));
    expect(f.deletes).toBe(10);
    const left = await query<{ run_id: string }>('SELECT run_id FROM runs WHERE run_id = ANY($1)', [ids]);
    expect(left).toEqual([]);
    const kept = await query<{ run_id: string; deleted_seq: number }>(
      'SELECT run_id, deleted_seq::int FROM deleted_runs ORDER BY deleted_seq',
    );
    expect(kept.map((k) => k.run_id)).toEqual(ids.slice(0, 10));
    expect(kept.every((k) => k.deleted_seq > top!.max)).toBe(true);
    await expect(pgRawDelete(db.url, 'bench', [ids[0]!], [])).rejects.toThrow(/not found/);
  });
});
