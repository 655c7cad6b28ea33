// Where the benchmark's server keeps its data, and the storage floors that go with it: the SQLite
// file (floors.ts, measure.ts's floorScan) or, with `--engine postgres`, a scratch PostgreSQL
// database given to the server as DATABASE_URL (pgFloors.ts), with a second scratch database for
// the insert and delete floors. The scratch databases are dropped by close().
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../src/db/contract.js';
import { createScratchDatabase, type ScratchDatabase } from '../test/support/postgres.js';
import { dropDatabase, rawDelete, rawInsert, type DeleteFloor, type InsertFloor } from './floors.js';
import { floorScan, type Floor } from './measure.js';
import { databaseMb, pgFloorScan, pgRawDelete, pgRawInsert, prepareFloorDatabase } from './pgFloors.js';

type Weights = { input: number; cachedInput: number; output: number };

export interface BenchStorage {
  engine: Engine;
  /** DATABASE_PATH for the server; on PostgreSQL only its directory is used (the signing key). */
  dbPath: string;
  /** Added to the server's environment: DATABASE_URL on PostgreSQL. */
  serverEnv: Record<string, string>;
  /** For the log, without credentials. */
  describe: string;
  /** What the floor database's schema is, for the log and the results. */
  floorSchema: string;
  /**
   * The runs inserted straight into the floor database, 1,000-row durable transactions; `rowid`
   * (SQLite only) the same with a plain rowid key. `keep`: leave the floor's runs for deleteFloor.
   */
  insertFloor(
    competitionId: string,
    bodies: string[],
    keep: boolean,
  ): Promise<{ sequence: InsertFloor; rowid: InsertFloor | null }>;
  /** The GROUP BY task, miner scan of the server's runs. */
  scanFloor(competitionId: string, w: Weights): Promise<Floor>;
  /** Durable deletes, one run a transaction, on the floor database of the last insertFloor(…, true). */
  deleteFloor(competitionId: string, kept: string[], plain: string[]): Promise<DeleteFloor>;
  /** The server's database size, MB. */
  databaseMb(): Promise<number>;
  close(): Promise<void>;
}

export function sqliteStorage(dir: string): BenchStorage {
  const dbPath = join(dir, 'bench.db');
  const floorDb = join(dir, 'floor-sequence.db');
  return {
    engine: 'sqlite',
    dbPath,
    serverEnv: {},
    describe: dbPath,
    floorSchema: 'SQLite, WAL, synchronous=FULL',
    async insertFloor(competitionId, bodies, keep) {
      const f = rawInsert(dir, competitionId, bodies);
      dropDatabase(join(dir, 'floor-rowid.db'));
      if (!keep) dropDatabase(floorDb);
      return f;
    },
    async scanFloor(competitionId, w) {
      return floorScan(dbPath, competitionId, w);
    },
    async deleteFloor(competitionId, kept, plain) {
      try {
        return rawDelete(floorDb, competitionId, kept, plain);
      } finally {
        dropDatabase(floorDb);
      }
    },
    async databaseMb() {
      return Math.round(statSync(dbPath).size / 1e6);
    },
    async close() {},
  };
}

/** Two scratch databases on the test server (PG_TEST_URL, else 127.0.0.1:5432): the server's and the floors'. */
export async function postgresStorage(dir: string): Promise<BenchStorage> {
  const created: ScratchDatabase[] = [];
  try {
    const server = await createScratchDatabase('bench_server');
    created.push(server);
    const floor = await createScratchDatabase('bench_floor');
    created.push(floor);
    await prepareFloorDatabase(floor.url);
    const where = (u: string) => `postgres://${new URL(u).host}${new URL(u).pathname}`;
    return {
      engine: 'postgres',
      dbPath: join(dir, 'unused.db'),
      serverEnv: { DATABASE_URL: server.url },
      describe: where(server.url),
      floorSchema: `PostgreSQL ${where(floor.url)}, synchronous_commit on`,
      async insertFloor(competitionId, bodies) {
        // Each insertFloor empties the floor's tables first; what the last one left is deleteFloor's.
        return { sequence: await pgRawInsert(floor.url, competitionId, bodies), rowid: null };
      },
      scanFloor: (competitionId, w) => pgFloorScan(server.url, competitionId, w),
      deleteFloor: (competitionId, kept, plain) => pgRawDelete(floor.url, competitionId, kept, plain),
      databaseMb: () => databaseMb(server.url),
      async close() {
        for (const db of created.splice(0)) await db.drop();
      },
    };
  } catch (err) {
    for (const db of created) await db.drop().catch(() => {});
    throw err;
  }
}
