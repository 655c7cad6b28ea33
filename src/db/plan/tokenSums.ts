// The exact integer token sums the aggregates keep, and their bound: a sum past 2^53 - 1 could no
// longer be read back exactly, and every score built on it would be off. Both engines refuse such
// a write with the same 422, naming the same pair; the SQL that sums is each engine's own
// (src/db/tokenSql.ts, src/db/pg/tokenSql.ts).
import { unprocessable } from '../../errors.js';
import type { TokenSums } from '../../scoring/tokenSums.js';

/** The largest token sum stored: every integer up to it is an exact double. */
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** True when one of the three sums is past the bound (a delta that is cannot be added exactly). */
export const passesBound = (t: TokenSums) => t.input > MAX_EXACT || t.cached > MAX_EXACT || t.output > MAX_EXACT;

/** Whose token sums: the baseline's or a miner's, on a task. */
export interface SumOwner {
  kind: 'baseline' | 'miner';
  taskId: string;
  minerHotkey: string | null;
}

const sumsOf = (d: SumOwner) =>
  `the token sums of ${d.kind === 'baseline' ? 'the baseline' : `miner ${d.minerHotkey}`} on task ${d.taskId}`;

/** A batch that would pass the bound. Thrown inside the write transaction, it stores nothing of it. */
export const tooLarge = (d: SumOwner) =>
  unprocessable(
    `${sumsOf(d)} would pass 2^53 - 1 and could no longer be added exactly; nothing was stored. Check the token counts sent`,
  );

/**
 * A rebuild (new token weights, a validator included again) whose counted runs would pass the
 * bound. Nothing changes: the caller's transaction rolls back.
 */
export const tooLargeToCount = (d: SumOwner) =>
  unprocessable(
    `${sumsOf(d)} would pass 2^53 - 1 with these runs counted under these token weights, and ` +
      'could no longer be added exactly; nothing was changed. Delete the runs with the oversized token counts first',
  );
