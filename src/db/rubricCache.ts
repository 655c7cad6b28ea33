// The rubrics run ingestion grades with (src/db/tasks.ts `rubrics`), kept between batches on one
// SQLite connection: every batch read its tasks' types and criteria again (0.3-0.4 ms a 1,000-run
// batch), though a rubric changes only when its task is written.
//
// What the kept rubrics were read under is a stamp read in the caller's own transaction, and they
// are used only while it is the same:
// - a write through this connection to what a rubric is made of (a task inserted, deleted or its
//   type changed; a criterion inserted, deleted or its key, position or polarity changed: not the
//   counters ingestion bumps) sets a one-row TEMP table to a number never used before (TEMP
//   triggers, fed by a counter in this process). The TEMP table is in the transaction: a write
//   rolled back (or back to a savepoint) restores the number before it, so what was read after the
//   write under its number is never used again, and a write that commits leaves its number;
// - a commit by any other connection (the import worker's, a recount's, another process's) changes
//   `PRAGMA data_version`.
// A connection where the TEMP objects cannot be made keeps nothing. PostgreSQL reads every time
// (src/db/pg/tasks.ts): other processes write there, and nothing tells this one.
import type { Database } from 'better-sqlite3';
import type { Rubric } from './rows.js';

/** More tasks than this kept (across competitions), and all are let go. */
const MAX_KEPT = 20_000;

/** Numbers the triggers write, never one twice on a thread (each connection is used by one thread). */
let lastNumber = 0;

/**
 * The kept rubrics of a competition's tasks, valid in the caller's transaction now (the map to read
 * and to add to), or null on a connection where nothing is kept.
 */
export function rubricCache(c: Database): (competitionId: string) => Map<string, Rubric> | null {
  const stampOf = watchRubricWrites(c);
  if (!stampOf) return () => null;
  let keptUnder = '';
  const byCompetition = new Map<string, Map<string, Rubric>>();
  return (competitionId) => {
    const stamp = stampOf();
    let size = 0;
    for (const kept of byCompetition.values()) size += kept.size;
    if (stamp !== keptUnder || size > MAX_KEPT) {
      byCompetition.clear();
      keptUnder = stamp;
    }
    let kept = byCompetition.get(competitionId);
    if (!kept) byCompetition.set(competitionId, (kept = new Map<string, Rubric>()));
    return kept;
  };
}

/** The TEMP table and triggers above on `c`, and a reader of the stamp; null when they cannot be made. */
function watchRubricWrites(c: Database): (() => string) | null {
  // Made inside a transaction, they would go with its rollback.
  if (c.inTransaction) return null;
  const watched = [
    ['tasks', 'INSERT', ''],
    ['tasks', 'DELETE', ''],
    ['tasks', 'UPDATE', ' OF competition_id, id, type'],
    ['task_criteria', 'INSERT', ''],
    ['task_criteria', 'DELETE', ''],
    ['task_criteria', 'UPDATE', ' OF competition_id, task_id, position, id, type'],
  ] as const;
  try {
    c.function('rubric_write_number', { deterministic: false }, () => ++lastNumber);
    c.exec('CREATE TEMP TABLE IF NOT EXISTS rubric_writes (n INTEGER NOT NULL)');
    c.exec('DELETE FROM temp.rubric_writes; INSERT INTO temp.rubric_writes VALUES (rubric_write_number())');
    for (const [table, op, columns] of watched)
      c.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS rubric_write_${table}_${op.toLowerCase()} AFTER ${op}${columns} ` +
          `ON main.${table} BEGIN UPDATE temp.rubric_writes SET n = rubric_write_number(); END`,
      );
    const stamp = c.prepare('SELECT n, (SELECT data_version FROM pragma_data_version) FROM temp.rubric_writes').raw();
    return () => (stamp.get() as [number, number]).join(':');
  } catch {
    return null;
  }
}
