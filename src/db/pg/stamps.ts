// The stamps a PostgreSQL write transaction leaves for the other server processes on the database:
// each (task, miner) pair it changed, with its version (pair_versions, migration 0010), read by
// their catch-up (src/db/pg/scoringInput.ts).
import type { WriteEvent } from '../events.js';

/** The version of the last write of each pair a transaction changed (removed rows included). */
const stampPairs = (competition: string, tasks: string, hotkeys: string, version: number) =>
  `INSERT INTO pair_versions AS p (competition_id, task_id, hotkey, version)
  SELECT ${competition}, u.task_id, u.hotkey, ${version} FROM unnest(${tasks}::text[], ${hotkeys}::text[]) AS u(task_id, hotkey)
  ON CONFLICT (competition_id, task_id, hotkey) DO UPDATE SET version = excluded.version`;
/** Every aggregate rebuilt: no stamp before this version tells what changed. */
const stampsRestart = (competition: string) =>
  `UPDATE competition_versions SET stamped_from = version + 1 WHERE competition_id = ${competition}`;

/**
 * The statements that stamp the pairs the transaction changed with its version, for other
 * processes' catch-up (src/db/pg/scoringInput.ts), from the transaction's pair events, which
 * every change of miner_tasks tells; a rebuild of every aggregate restarts the stamps instead.
 * Literal SQL, sent in one message with the COMMIT (the simple protocol, as `beginWithBump`): no
 * round trip of its own (src/db/pg/store.ts). `bumped`: each competition the transaction bumped, with
 * its version; `literal` quotes a string as the connection does. Empty when there is nothing to stamp.
 */
export function stampsSql(
  bumped: ReadonlyMap<string, number>,
  events: readonly WriteEvent[],
  literal: (value: string) => string,
): string {
  const statements: string[] = [];
  for (const [competitionId, version] of bumped) {
    const pairs = new Set<string>();
    let rebuilt = false;
    for (const e of events) {
      if (e.competitionId !== competitionId) continue;
      if (e.kind === 'pair') pairs.add(e.pair);
      else if (e.kind === 'rebuild') rebuilt = true;
    }
    if (rebuilt) statements.push(stampsRestart(literal(competitionId)));
    else if (pairs.size > 0) {
      const tasks: string[] = [];
      const hotkeys: string[] = [];
      for (const key of pairs) {
        const cut = key.indexOf('\u0000');
        tasks.push(literal(key.slice(0, cut)));
        hotkeys.push(literal(key.slice(cut + 1)));
      }
      statements.push(
        stampPairs(literal(competitionId), `ARRAY[${tasks.join(',')}]`, `ARRAY[${hotkeys.join(',')}]`, version),
      );
    }
  }
  return statements.join('; ');
}
