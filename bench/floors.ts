// Storage floors, measured in the benchmark's own process on a database file of their own with the
// server's connection settings (src/db/client.ts: WAL, synchronous=FULL), and twice its page cache
// (16 MiB against 8: a floor at least as fast as the server could be): what it costs SQLite alone
// to store the benchmark's runs durably, and to delete runs one by one.
import Database from 'better-sqlite3';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Run } from './generate.js';

/** The runs table of migrations/0001_v1_1.sql without its foreign key to tasks; `autoincrement`
 * false gives the plain rowid key the run sequence replaced, to price AUTOINCREMENT. */
function runsDdl(autoincrement: boolean): string {
  return `CREATE TABLE runs (
    seq integer PRIMARY KEY ${autoincrement ? 'AUTOINCREMENT ' : ''}NOT NULL,
    competition_id text NOT NULL, run_id text NOT NULL, task_id text NOT NULL, kind text NOT NULL,
    miner_hotkey text, validator_id text, attempt_no integer, resolved integer NOT NULL,
    tokens_input integer, tokens_cached_input integer, tokens_output integer, time_taken_seconds real,
    agent_steps integer, rubric_votes text, grading text,
    created_at text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL);
  CREATE UNIQUE INDEX runs_competition_run ON runs (competition_id, run_id);
  CREATE TABLE deleted_runs (
    seq integer NOT NULL, competition_id text NOT NULL, run_id text NOT NULL, task_id text NOT NULL,
    kind text NOT NULL, miner_hotkey text, validator_id text, attempt_no integer, resolved integer NOT NULL,
    tokens_input integer, tokens_cached_input integer, tokens_output integer, time_taken_seconds real,
    agent_steps integer, rubric_votes text, grading text, created_at text NOT NULL,
    deleted_seq integer NOT NULL,
    deleted_at text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
    PRIMARY KEY (competition_id, deleted_seq)) WITHOUT ROWID;
  CREATE INDEX deleted_runs_seq ON deleted_runs (competition_id, seq);`;
}

function open(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('cache_size = -16384');
  return db;
}

const VALIDATOR_ID = '00000000-0000-4000-8000-000000000000';

/** A run as the server stores it (grading left out: the server derives it from QnA votes). */
function row(competitionId: string, r: Run): unknown[] {
  return [
    competitionId,
    r.runId,
    r.taskId,
    r.kind,
    r.minerHotkey ?? null,
    VALIDATOR_ID,
    r.attemptNo,
    r.resolved ? 1 : 0,
    r.tokens?.input ?? null,
    r.tokens?.cachedInput ?? null,
    r.tokens?.output ?? null,
    r.timeTakenSeconds,
    r.agentSteps,
    r.rubricVotes ? JSON.stringify(r.rubricVotes) : null,
    null,
  ];
}

export interface InsertFloor {
  runs: number;
  transactions: number;
  seconds: number;
  runsPerSecond: number;
  databaseMb: number;
}

const INSERT = `INSERT INTO runs (competition_id, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no,
    resolved, tokens_input, tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, rubric_votes, grading)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The same batches inserted straight into SQLite, one transaction (one fsync) per batch, into two
 * databases: `sequence` with the runs table as the server has it (AUTOINCREMENT run sequence) and
 * `rowid` with a plain rowid key. Each body is parsed before the clocks start; the two take turns
 * going first, batch by batch, so that neither gets the quieter moments or the warmer caches.
 */
export function rawInsert(
  dir: string,
  competitionId: string,
  bodies: string[],
): { sequence: InsertFloor; rowid: InsertFloor } {
  const variants = [true, false].map((autoincrement) => {
    const path = join(dir, `floor-${autoincrement ? 'sequence' : 'rowid'}.db`);
    const db = open(path);
    db.exec(runsDdl(autoincrement));
    const insert = db.prepare(INSERT);
    const batch = db.transaction((rows: unknown[][]) => {
      for (const r of rows) insert.run(r);
    });
    return { path, db, batch, ms: 0 };
  });
  try {
    let runs = 0;
    bodies.forEach((body, i) => {
      const rows = (JSON.parse(body) as { runs: Run[] }).runs.map((r) => row(competitionId, r));
      for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
        const start = performance.now();
        v.batch(rows);
        v.ms += performance.now() - start;
      }
      runs += rows.length;
    });
    const [sequence, rowid] = variants.map((v) => ({
      runs,
      transactions: bodies.length,
      seconds: Math.round(v.ms / 10) / 100,
      runsPerSecond: Math.round(runs / (v.ms / 1000)),
      databaseMb: Math.round((statSync(v.path).size + walSize(v.path)) / 1e6),
    }));
    return { sequence: sequence!, rowid: rowid! };
  } finally {
    for (const v of variants) v.db.close();
  }
}

const walSize = (path: string) => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};

export interface DeleteFloor {
  deletes: number;
  /** One run per transaction, copied to deleted_runs under the next sequence number first (the server's design). */
  keptPerSecond: number;
  /** One run per transaction, plain DELETE. */
  plainPerSecond: number;
}

/** Deletes `kept` and `plain` (different run ids), one durable transaction per run, on a floor database. */
export function rawDelete(path: string, competitionId: string, kept: string[], plain: string[]): DeleteFloor {
  const db = open(path);
  try {
    const nextSeq = db.prepare(`UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'runs' RETURNING seq`).pluck();
    const keep = db.prepare(`INSERT INTO deleted_runs (seq, competition_id, run_id, task_id, kind, miner_hotkey,
        validator_id, attempt_no, resolved, tokens_input, tokens_cached_input, tokens_output, time_taken_seconds,
        agent_steps, rubric_votes, grading, created_at, deleted_seq)
      SELECT seq, competition_id, run_id, task_id, kind, miner_hotkey, validator_id, attempt_no, resolved, tokens_input,
        tokens_cached_input, tokens_output, time_taken_seconds, agent_steps, rubric_votes, grading, created_at, ?
      FROM runs WHERE competition_id = ? AND run_id = ?`);
    const remove = db.prepare('DELETE FROM runs WHERE competition_id = ? AND run_id = ?');
    const keptOne = db.transaction((id: string) => {
      const seq = nextSeq.get() as number;
      keep.run(seq, competitionId, id);
      if (remove.run(competitionId, id).changes !== 1) throw new Error(`floor: run ${id} not found`);
    });
    const plainOne = db.transaction((id: string) => {
      if (remove.run(competitionId, id).changes !== 1) throw new Error(`floor: run ${id} not found`);
    });
    // Alternately one of each, so that neither kind gets the quieter moments.
    const ms = { kept: 0, plain: 0 };
    const time = (kind: 'kept' | 'plain', fn: (id: string) => void, id: string | undefined) => {
      if (id === undefined) return;
      const start = performance.now();
      fn(id);
      ms[kind] += performance.now() - start;
    };
    for (let i = 0; i < Math.max(kept.length, plain.length); i++) {
      time('kept', keptOne, kept[i]);
      time('plain', plainOne, plain[i]);
    }
    return {
      deletes: kept.length,
      keptPerSecond: Math.round(kept.length / (ms.kept / 1000)),
      plainPerSecond: Math.round(plain.length / (ms.plain / 1000)),
    };
  } finally {
    db.close();
  }
}

/**
 * Two passes of the same floor, one on each side of the figure it is a floor for (the machine is
 * shared: its load and its disk's fsync time drift by several times within minutes): their
 * combined rate, and each.
 */
export function bracket(before: InsertFloor, after: InsertFloor) {
  const seconds = before.seconds + after.seconds;
  const runs = before.runs + after.runs;
  return {
    runs: before.runs,
    seconds: Math.round((seconds / 2) * 100) / 100,
    runsPerSecond: Math.round(runs / seconds),
    beforeRunsPerSecond: before.runsPerSecond,
    afterRunsPerSecond: after.runsPerSecond,
    databaseMb: after.databaseMb,
  };
}

/** Removes a floor database and its WAL files. */
export function dropDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
