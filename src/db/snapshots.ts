// Snapshots and the inputs they were computed from. A snapshot row keeps its published document
// and the head of its input (competition and task lines, which are small); the run lines are
// read back from the runs as they stood: live runs stored up to the snapshot's run sequence,
// plus runs deleted after it (kept in deleted_runs). Nothing here updates or deletes a snapshot.
import type { Db } from './client.js';

export interface SnapshotRow {
  competitionId: string;
  seq: number;
  takenAt: string;
  runSeq: number;
  document: string;
  inputHead: string;
  hash: string;
}

/** A run as its input line needs it. */
export interface InputRunRow {
  runId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey: string | null;
  resolved: boolean;
  tokens: { input: number; cachedInput: number | null; output: number } | null;
  validatorId: string | null;
}

/** Runs read per page of an input document. */
export const PAGE = 2000;

export const RUN_COLUMNS = `run_id, task_id, kind, miner_hotkey, resolved, tokens_input, tokens_cached_input, tokens_output, validator_id`;
/** An input run's columns as either engine reads them (SQLite's booleans are 0/1). */
export type RawRun = [
  string,
  string,
  'baseline' | 'miner',
  string | null,
  number | boolean,
  number | null,
  number | null,
  number | null,
  string | null,
];
export const toInputRun = (r: RawRun): InputRunRow => ({
  runId: r[0],
  taskId: r[1],
  kind: r[2],
  minerHotkey: r[3],
  resolved: r[4] === 1 || r[4] === true,
  tokens: r[5] === null || r[7] === null ? null : { input: r[5], cachedInput: r[6], output: r[7] },
  validatorId: r[8],
});

export function snapshotsRepo(db: Db) {
  const c = db.$client;
  const columns =
    'competition_id AS competitionId, seq, taken_at AS takenAt, run_seq AS runSeq, document, input_head AS inputHead, hash';
  const latest = c.prepare(`SELECT ${columns} FROM snapshots WHERE competition_id = ? ORDER BY seq DESC LIMIT 1`);
  const one = c.prepare(`SELECT ${columns} FROM snapshots WHERE competition_id = ? AND seq = ?`);
  const page = c.prepare(`SELECT ${columns} FROM snapshots WHERE competition_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
  const insert = c.prepare(`INSERT INTO snapshots (competition_id, seq, taken_at, run_seq, document, input_head, hash)
    VALUES (@competitionId, @seq, @takenAt, @runSeq, @document, @inputHead, @hash)`);
  const runSeq = c.prepare(`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0)`).pluck();
  // In run id order through the (competition, run id) index, a page at a time: no sort, and no
  // statement left open between pages (the connection is shared with writes, which an open
  // iterator would block).
  const liveRuns = c
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM runs INDEXED BY runs_competition_run
    WHERE competition_id = @id AND run_id > @after AND seq <= @upTo
      AND (validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))
    ORDER BY run_id LIMIT @limit`,
    )
    .raw();
  const deletedRuns = c
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM deleted_runs
    WHERE competition_id = @id AND seq <= @upTo AND deleted_seq > @upTo
      AND (validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))
    ORDER BY run_id`,
    )
    .raw();

  const countLive = c
    .prepare(
      `SELECT count(*) FROM runs INDEXED BY runs_competition_run
    WHERE competition_id = @id AND seq <= @upTo AND (validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))`,
    )
    .pluck();
  const countDeleted = c
    .prepare(
      `SELECT count(*) FROM deleted_runs WHERE competition_id = @id AND seq <= @upTo AND deleted_seq > @upTo
      AND (validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))`,
    )
    .pluck();

  return {
    /** How many runs `inputRuns` gives for the same arguments. */
    inputRunCount(competitionId: string, upTo: number, excludedValidators: readonly string[]): number {
      const params = { id: competitionId, upTo, excluded: JSON.stringify(excludedValidators) };
      return (countLive.get(params) as number) + (countDeleted.get(params) as number);
    },
    latest: (competitionId: string) => (latest.get(competitionId) as SnapshotRow | undefined) ?? null,
    get: (competitionId: string, seq: number) => (one.get(competitionId, seq) as SnapshotRow | undefined) ?? null,
    list: (competitionId: string, after: number, limit: number) =>
      page.all(competitionId, after, limit) as SnapshotRow[],
    insert: (row: SnapshotRow) => void insert.run(row),
    /** The run sequence now: every run stored so far has seq <= this. */
    runSeq: () => runSeq.get() as number,
    /**
     * The runs of a competition as they stood at run sequence `upTo`, in run id order, leaving out
     * the runs of the given validators. Deleted runs are few: they are read whole and merged in.
     */
    *inputRuns(competitionId: string, upTo: number, excludedValidators: readonly string[]): Generator<InputRunRow> {
      const params = { id: competitionId, upTo, excluded: JSON.stringify(excludedValidators) };
      const deleted = (deletedRuns.all(params) as RawRun[]).map(toInputRun);
      let d = 0;
      let after = '';
      for (;;) {
        const page = liveRuns.all({ ...params, after, limit: PAGE }) as RawRun[];
        for (const raw of page) {
          while (d < deleted.length && deleted[d]!.runId < raw[0]) yield deleted[d++]!;
          yield toInputRun(raw);
        }
        if (page.length < PAGE) break;
        after = page[page.length - 1]![0];
      }
      while (d < deleted.length) yield deleted[d++]!;
    },
  };
}
