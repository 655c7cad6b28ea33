// src/db/snapshots.ts on PostgreSQL: snapshot rows, and the runs of a snapshot's input as they
// stood at its run sequence.
import {
  PAGE,
  RUN_COLUMNS,
  toInputRun,
  type InputRunRow,
  type RawRun,
  type SigningKeyRow,
  type SnapshotRow,
} from '../snapshots.js';
import {
  snapshotParts,
  type SnapshotHeadRow,
  type SnapshotMinerRow,
  type SnapshotWeightsRow,
} from '../snapshotParts.js';
import { judgedSql } from './aggregates.js';
import { RUN_SEQUENCE, type PgContext } from './context.js';

const COLUMNS = `competition_id AS "competitionId", seq, taken_at AS "takenAt", run_seq AS "runSeq", document,
  input_head AS "inputHead", hash`;

/**
 * Kept: not an excluded validator's ($3), and not stale under $6 (SPEC 12); with $7, also the QnA
 * runs that name no judge configuration (src/db/snapshots.ts).
 */
const kept = (excluded: string, judge: string, undigested: string) => `(validator_id IS NULL
  OR NOT (validator_id = ANY(${excluded}::text[])))
  AND (${judgedSql(`${judge}::text`)} OR (${undigested}::bool AND judge_digest IS NULL))`;
const KEPT = kept('$3', '$6', '$7');
const COUNTED = kept('$3', '$4', 'false');

/**
 * The highest run sequence number handed out, 0 before the first. The sequence is not
 * transactional: inside a transaction scoped to a competition, whose writers take turns
 * (src/db/pg/store.ts), every committed run and deletion of that competition is at or below it.
 */
export const RUN_SEQ_SQL = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${RUN_SEQUENCE}`;

export async function readRunSeq(ctx: PgContext): Promise<number> {
  const [[seq]] = (await ctx.query<[number]>(RUN_SEQ_SQL, [], { array: true })) as [[number]];
  return seq;
}

export function pgSnapshotsRepo(ctx: PgContext) {
  return {
    async latest(competitionId: string): Promise<SnapshotRow | null> {
      const [row] = await ctx.query<SnapshotRow>(
        `SELECT ${COLUMNS} FROM snapshots WHERE competition_id = $1 ORDER BY seq DESC LIMIT 1`,
        [competitionId],
      );
      return row ?? null;
    },
    async get(competitionId: string, seq: number): Promise<SnapshotRow | null> {
      const [row] = await ctx.query<SnapshotRow>(
        `SELECT ${COLUMNS} FROM snapshots WHERE competition_id = $1 AND seq = $2`,
        [competitionId, seq],
      );
      return row ?? null;
    },
    /** src/db/snapshots.ts heads: no document is read. */
    heads(competitionId: string, after: number, limit: number): Promise<SnapshotHeadRow[]> {
      return ctx.query<SnapshotHeadRow>(
        `SELECT seq, summary FROM snapshots WHERE competition_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [competitionId, after, limit],
      );
    },
    weightsHistory(competitionId: string, after: number, limit: number): Promise<SnapshotWeightsRow[]> {
      return ctx.query<SnapshotWeightsRow>(
        `SELECT seq, taken_at AS "takenAt", final_weights AS "finalWeights", burn_weight AS "burnWeight"
        FROM snapshots WHERE competition_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [competitionId, after, limit],
      );
    },
    /** The miner's entry found by PostgreSQL in the miners column (json, its text as written), not parsed here. */
    minerHistory(competitionId: string, hotkey: string, after: number, limit: number): Promise<SnapshotMinerRow[]> {
      return ctx.query<SnapshotMinerRow>(
        `SELECT seq, taken_at AS "takenAt", (miners::json -> $2::text)::text AS entry
        FROM snapshots WHERE competition_id = $1 AND seq > $3 ORDER BY seq LIMIT $4`,
        [competitionId, hotkey, after, limit],
      );
    },
    // `undefined`, as SQLite's `void insert.run(row)` gives.
    async insert(row: SnapshotRow): Promise<undefined> {
      const parts = snapshotParts(row.document);
      await ctx.execute(
        `INSERT INTO snapshots (competition_id, seq, taken_at, run_seq, document, input_head, hash,
          summary, final_weights, burn_weight, miners)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          row.competitionId,
          row.seq,
          row.takenAt,
          row.runSeq,
          row.document,
          row.inputHead,
          row.hash,
          parts.summary,
          parts.finalWeights,
          parts.burnWeight,
          parts.miners,
        ],
      );
      return undefined;
    },
    latestSeqs(): Promise<{ competitionId: string; seq: number }[]> {
      return ctx.query<{ competitionId: string; seq: number }>(
        `SELECT competition_id AS "competitionId", max(seq) AS seq FROM snapshots GROUP BY competition_id
        ORDER BY competition_id COLLATE "C"`,
      );
    },
    signingKeys(): Promise<SigningKeyRow[]> {
      return ctx.query<SigningKeyRow>(
        `SELECT position, fingerprint, public_key AS "publicKey", recorded_at AS "recordedAt", starts
        FROM signing_keys ORDER BY position`,
      );
    },
    async recordSigningKey(key: Pick<SigningKeyRow, 'fingerprint' | 'publicKey' | 'starts'>): Promise<undefined> {
      await ctx.execute(
        `INSERT INTO signing_keys (position, fingerprint, public_key, starts)
        VALUES (coalesce((SELECT max(position) FROM signing_keys), 0) + 1, $1, $2, $3)
        ON CONFLICT (position) DO NOTHING`,
        [key.fingerprint, key.publicKey, key.starts],
      );
      return undefined;
    },
    /** The run sequence now (see RUN_SEQ_SQL). */
    runSeq: () => readRunSeq(ctx),
    /** src/db/snapshots.ts countedRuns. */
    async countedRuns(competitionId: string): Promise<number> {
      const [[n]] = (await ctx.query<[number]>(
        `SELECT ((SELECT coalesce(sum(baseline_runs), 0) FROM tasks WHERE competition_id = $1)
          + (SELECT coalesce(sum(runs), 0) FROM miner_tasks WHERE competition_id = $1))::int8`,
        [competitionId],
        { array: true },
      )) as [[number]];
      return n;
    },
    /** src/db/snapshots.ts lastDeletedSeq: the last entry of deleted_runs' key. */
    async lastDeletedSeq(competitionId: string): Promise<number> {
      const [[seq]] = (await ctx.query<[number]>(
        'SELECT coalesce(max(deleted_seq), 0) FROM deleted_runs WHERE competition_id = $1',
        [competitionId],
        { array: true },
      )) as [[number]];
      return seq;
    },
    /**
     * The runs of a competition as they stood at run sequence `upTo`, in run id order (bytes, as
     * SQLite's BINARY), leaving out the runs of the given validators and the stale ones. A page at a time, as on
     * SQLite: each page reads the live and the deleted runs over the same run id range, in one
     * statement (one snapshot of both), so a run deleted between two pages is still read, on the
     * deleted side.
     */
    /** src/db/snapshots.ts inputRunCount. */
    async inputRunCount(
      competitionId: string,
      upTo: number,
      excludedValidators: readonly string[],
      judge: string | null,
    ): Promise<number> {
      const [[n]] = (await ctx.query<[string]>(
        `SELECT (SELECT count(*) FROM runs WHERE competition_id = $1 AND seq <= $2 AND ${COUNTED})
        + (SELECT count(*) FROM deleted_runs WHERE competition_id = $1 AND seq <= $2 AND deleted_seq > $2 AND ${COUNTED})`,
        [competitionId, upTo, excludedValidators, judge],
        { array: true },
      )) as [[string]];
      return Number(n);
    },
    async *inputRuns(
      competitionId: string,
      upTo: number,
      excludedValidators: readonly string[],
      judge: string | null = null,
      undigestedQna = false,
    ): AsyncGenerator<InputRunRow> {
      for (let after = ''; ;) {
        const page = await ctx.query<RawRun>(
          `SELECT * FROM ((SELECT ${RUN_COLUMNS} FROM runs
            WHERE competition_id = $1 AND run_id COLLATE "C" > $4 AND seq <= $2 AND ${KEPT}
            ORDER BY run_id COLLATE "C" LIMIT $5)
          UNION ALL
          (SELECT ${RUN_COLUMNS} FROM deleted_runs
            WHERE competition_id = $1 AND run_id COLLATE "C" > $4 AND seq <= $2 AND deleted_seq > $2 AND ${KEPT}
            ORDER BY run_id COLLATE "C" LIMIT $5)) page
          ORDER BY run_id COLLATE "C" LIMIT $5`,
          [competitionId, upTo, excludedValidators, after, PAGE, judge, undigestedQna],
          { array: true },
        );
        for (const raw of page) yield toInputRun(raw);
        if (page.length < PAGE) return;
        after = page[page.length - 1]![0];
      }
    },
  };
}
