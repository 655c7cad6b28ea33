// Snapshots and the inputs they were computed from. A snapshot row keeps its published document
// and the head of its input (competition and task lines, which are small); the run lines are
// read back from the runs as they stood: live runs stored up to the snapshot's run sequence,
// plus runs deleted after it (kept in deleted_runs). Nothing here updates or deletes a snapshot.
import { judgedSql } from './aggregates.js';
import type { Db } from './client.js';
import {
  snapshotParts,
  type SnapshotHeadRow,
  type SnapshotMinerRow,
  type SnapshotWeightsRow,
} from './snapshotParts.js';

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

/** A snapshot-signing key as recorded (src/services/signingKeys.ts). */
export interface SigningKeyRow {
  position: number;
  fingerprint: string;
  publicKey: string;
  recordedAt: string;
  /** Per competition, the seq of the first snapshot this key signs (JSON object). */
  starts: string;
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

/**
 * The run sequence now: the last number runs and deletions took (0 before any). A snapshot's input is
 * the runs as they stood at it; the stability report reads the same way (src/db/judges.ts).
 */
export const runSeqSql = `SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0)`;

export function snapshotsRepo(db: Db) {
  const c = db.$client;
  const columns =
    'competition_id AS competitionId, seq, taken_at AS takenAt, run_seq AS runSeq, document, input_head AS inputHead, hash';
  const latest = c.prepare(`SELECT ${columns} FROM snapshots WHERE competition_id = ? ORDER BY seq DESC LIMIT 1`);
  const one = c.prepare(`SELECT ${columns} FROM snapshots WHERE competition_id = ? AND seq = ?`);
  const heads = c.prepare(
    `SELECT seq, summary FROM snapshots WHERE competition_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const weightsPage =
    c.prepare(`SELECT seq, taken_at AS takenAt, final_weights AS finalWeights, burn_weight AS burnWeight
    FROM snapshots WHERE competition_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
  // The miner's entry found by SQLite in the miners column, not parsed here.
  const minerPage = c.prepare(`SELECT seq, taken_at AS takenAt,
      (SELECT value FROM json_each(miners) WHERE key = @hotkey ORDER BY id DESC LIMIT 1) AS entry
    FROM snapshots WHERE competition_id = @id AND seq > @after ORDER BY seq LIMIT @limit`);
  const insert = c.prepare(`INSERT INTO snapshots (competition_id, seq, taken_at, run_seq, document, input_head, hash,
      summary, final_weights, burn_weight, miners)
    VALUES (@competitionId, @seq, @takenAt, @runSeq, @document, @inputHead, @hash,
      @summary, @finalWeights, @burnWeight, @miners)`);
  const keys = c.prepare(
    `SELECT position, fingerprint, public_key AS publicKey, recorded_at AS recordedAt, starts FROM signing_keys ORDER BY position`,
  );
  const recordKey = c.prepare(`INSERT INTO signing_keys (position, fingerprint, public_key, starts)
    VALUES (coalesce((SELECT max(position) FROM signing_keys), 0) + 1, @fingerprint, @publicKey, @starts)
    ON CONFLICT (position) DO NOTHING`);
  const latestSeqs = c.prepare(
    `SELECT competition_id AS competitionId, max(seq) AS seq FROM snapshots GROUP BY competition_id ORDER BY competition_id`,
  );
  const runSeq = c.prepare(runSeqSql).pluck();
  // What a snapshot's head counts, summed from the aggregates as the scoring input sums it (countedRuns).
  const countedRuns = c
    .prepare(
      `SELECT (SELECT coalesce(sum(baseline_runs), 0) FROM tasks WHERE competition_id = @id)
        + (SELECT coalesce(sum(runs), 0) FROM miner_tasks WHERE competition_id = @id)`,
    )
    .pluck();
  // The last entry of the competition's deleted runs in their key (competition, deleted_seq).
  const lastDeletedSeq = c
    .prepare('SELECT coalesce(max(deleted_seq), 0) FROM deleted_runs WHERE competition_id = ?')
    .pluck();
  // The runs as they stood at @upTo, in run id order, a page at a time: the live runs stored up to it
  // and the runs deleted since, each side through its (competition, run id) index. A page reads both
  // sides over the same run id range in one read transaction, so a run deleted between two pages is
  // found on the deleted side of the page whose range holds it: the input is the same whatever is
  // written while it is read. The two sides are merged here: one statement over both (UNION ALL)
  // sorted every page in a temporary b-tree and took twice as long at 4x. No statement stays open
  // between pages (the connection is shared with writes, which an open iterator would block).
  // Kept: not an excluded validator's, and not stale under @judge (SPEC 12); with @undigested, also
  // the QnA runs that name no judge configuration (snapshots taken before they were stale).
  const kept = `(validator_id IS NULL OR validator_id NOT IN (SELECT value FROM json_each(@excluded)))
    AND (${judgedSql('@judge')} OR (@undigested = 1 AND judge_digest IS NULL))`;
  const livePage = c
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM runs INDEXED BY runs_competition_run
    WHERE competition_id = @id AND run_id > @after AND seq <= @upTo AND ${kept} ORDER BY run_id LIMIT @limit`,
    )
    .raw();
  const deletedPage = c
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM deleted_runs INDEXED BY deleted_runs_run
    WHERE competition_id = @id AND run_id > @after AND (@until IS NULL OR run_id <= @until)
      AND seq <= @upTo AND deleted_seq > @upTo AND ${kept} ORDER BY run_id`,
    )
    .raw();
  // How many runs inputRuns yields: the live side and the deleted side, each counted.
  const inputRunCount = c
    .prepare(
      `SELECT (SELECT count(*) FROM runs WHERE competition_id = @id AND seq <= @upTo AND ${kept})
      + (SELECT count(*) FROM deleted_runs WHERE competition_id = @id AND seq <= @upTo AND deleted_seq > @upTo AND ${kept})`,
    )
    .pluck();
  /** The runs with run id in (after, until], `until` the live page's last (null: no more live runs). */
  const readPage = c.transaction(
    (params: {
      id: string;
      upTo: number;
      excluded: string;
      judge: string | null;
      undigested: number;
      after: string;
    }) => {
      const live = livePage.all({ ...params, limit: PAGE }) as RawRun[];
      const until = live.length < PAGE ? null : live[live.length - 1]![0];
      return { live, deleted: deletedPage.all({ ...params, until }) as RawRun[], until };
    },
  );

  return {
    latest: (competitionId: string) => (latest.get(competitionId) as SnapshotRow | undefined) ?? null,
    get: (competitionId: string, seq: number) => (one.get(competitionId, seq) as SnapshotRow | undefined) ?? null,
    /** The snapshots after `after`, oldest first, each as its summary: no document is read. */
    heads: (competitionId: string, after: number, limit: number) =>
      heads.all(competitionId, after, limit) as SnapshotHeadRow[],
    weightsHistory: (competitionId: string, after: number, limit: number) =>
      weightsPage.all(competitionId, after, limit) as SnapshotWeightsRow[],
    minerHistory: (competitionId: string, hotkey: string, after: number, limit: number) =>
      minerPage.all({ id: competitionId, hotkey, after, limit }) as SnapshotMinerRow[],
    insert: (row: SnapshotRow) => void insert.run({ ...row, ...snapshotParts(row.document) }),
    /** Each competition's latest snapshot seq; competitions without one are left out. */
    latestSeqs: () => latestSeqs.all() as { competitionId: string; seq: number }[],
    /** The snapshot-signing keys in the order they came into force. */
    signingKeys: () => keys.all() as SigningKeyRow[],
    /**
     * Records `key` as the one in force from now; nothing when another process recorded one
     * meanwhile (replicas starting together on PostgreSQL with the same key file).
     */
    recordSigningKey: (key: Pick<SigningKeyRow, 'fingerprint' | 'publicKey' | 'starts'>) => void recordKey.run(key),
    /** The run sequence now: every run stored so far has seq <= this. */
    runSeq: () => runSeq.get() as number,
    /** The run sequence number the competition's last deletion of a run took (0 before any). */
    lastDeletedSeq: (competitionId: string) => lastDeletedSeq.get(competitionId) as number,
    /** The runs that count (src/services/snapshotInput.ts countedRuns), from the aggregates. */
    countedRuns: (competitionId: string) => countedRuns.get({ id: competitionId }) as number,
    /**
     * The runs of a competition as they stood at run sequence `upTo`, in run id order, leaving out
     * the runs of the given validators and the runs stale under the judge configuration `judge`
     * (SPEC 12); with `undigestedQna`, keeping the QnA runs that name none (contract.ts).
     */
    inputRunCount(competitionId: string, upTo: number, excludedValidators: readonly string[], judge: string | null) {
      const excluded = JSON.stringify(excludedValidators);
      return inputRunCount.get({ id: competitionId, upTo, excluded, judge, undigested: 0 }) as number;
    },
    *inputRuns(
      competitionId: string,
      upTo: number,
      excludedValidators: readonly string[],
      judge: string | null = null,
      undigestedQna = false,
    ): Generator<InputRunRow> {
      const excluded = JSON.stringify(excludedValidators);
      const params = { id: competitionId, upTo, excluded, judge, undigested: undigestedQna ? 1 : 0 };
      for (let after = ''; ;) {
        const { live, deleted, until } = readPage({ ...params, after });
        let d = 0;
        for (const raw of live) {
          while (d < deleted.length && deleted[d]![0] < raw[0]) yield toInputRun(deleted[d++]!);
          yield toInputRun(raw);
        }
        while (d < deleted.length) yield toInputRun(deleted[d++]!);
        if (until === null) return;
        after = until;
      }
    },
  };
}
