// Snapshot parts: what the public snapshot list and history reads answer with (src/db/snapshots.ts).
/**
 * The parts of a snapshot the list and history reads answer with, kept in their own columns beside
 * the document so that those reads neither load nor parse it (a document holds the whole
 * leaderboard: ~100 KB at 256 miners). Derived from the document when a row is inserted, and by
 * migration 0010 (PostgreSQL 0012) for the rows stored before.
 */
export interface SnapshotParts {
  /** The document without `leaderboard`, `weights` and `chain` (JSON): what the list answers. */
  summary: string;
  /** `weights.finalWeights` (JSON), null when the document has none. */
  finalWeights: string | null;
  burnWeight: number | null;
  /** Per leaderboard hotkey, `[rank, normalizedScore, incentive.finalWeight]` (a JSON object). */
  miners: string;
}

type Parsed = {
  leaderboard?: {
    miners?: {
      hotkey: string;
      rank?: number | null;
      normalizedScore?: number | null;
      incentive?: { finalWeight?: number };
    }[];
  };
  weights?: { finalWeights?: unknown; burnWeight?: unknown };
  chain?: unknown;
};

/** A document's parts (see SnapshotParts); what the migrations' backfill computes in SQL. */
export function snapshotParts(document: string): SnapshotParts {
  const { leaderboard, weights, chain: _chain, ...rest } = JSON.parse(document) as Parsed;
  const miners = Array.isArray(leaderboard?.miners) ? leaderboard.miners : [];
  return {
    summary: JSON.stringify(rest),
    finalWeights: weights?.finalWeights === undefined ? null : JSON.stringify(weights.finalWeights),
    burnWeight: typeof weights?.burnWeight === 'number' ? weights.burnWeight : null,
    miners: JSON.stringify(
      Object.fromEntries(
        miners.map((m) => [m.hotkey, [m.rank ?? null, m.normalizedScore ?? null, m.incentive?.finalWeight ?? null]]),
      ),
    ),
  };
}

/** A row of the snapshot list: its number and summary (SnapshotParts). */
export interface SnapshotHeadRow {
  seq: number;
  summary: string;
}

/** A row of the weights history. */
export interface SnapshotWeightsRow {
  seq: number;
  takenAt: string;
  finalWeights: string | null;
  burnWeight: number | null;
}

/** A row of a miner's history: its `[rank, normalizedScore, finalWeight]` (JSON), null when absent. */
export interface SnapshotMinerRow {
  seq: number;
  takenAt: string;
  entry: string | null;
}
