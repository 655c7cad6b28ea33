// Shared by the suites of two stores on one PostgreSQL database (pgPeerCatchUp, pgPeerAttack): a
// competition of SWE tasks, set up through a store, and a miner run as the runs repository takes it.
import type pg from 'pg';
import type { Store } from '../../src/db/contract.js';
import type { TokenWeights } from '../../src/scoring/types.js';
import { sweTask } from '../support/enginePair.js';

/** Creates competition `id` with SWE-bench tasks `taskIds` (all in the evaluation stage), through `store`. */
export async function sweCompetition(
  store: Store,
  id: string,
  taskIds: readonly string[],
  tokenWeights?: TokenWeights,
): Promise<void> {
  await store.transaction(
    (tx) => tx.competitions.upsert(id, { name: id, ...(tokenWeights ? { tokenWeights } : {}) }).then(() => undefined),
    { competitionId: id },
  );
  await store.transaction(
    (tx) =>
      tx.tasks
        .upsertMany(
          id,
          taskIds.map((taskId) => sweTask(taskId)),
        )
        .then(() => undefined),
    { competitionId: id },
  );
}

/** A miner run of competition `competitionId` as runs.insertMany takes it. */
export const minerRun = (
  competitionId: string,
  runId: string,
  taskId: string,
  hotkey: string,
  resolved: boolean,
  tokens: { input: number; cachedInput: number; output: number },
  validatorId: string | null = null,
) => ({
  competitionId,
  runId,
  taskId,
  kind: 'miner' as const,
  minerHotkey: hotkey,
  validatorId,
  attemptNo: null,
  resolved,
  tokens,
  timeTakenSeconds: null,
  agentSteps: null,
  rubricVotes: null,
  criteria: null,
});

/**
 * A write as a server that does not stamp makes it (one from before migration 0010): the version
 * moves and one random pair of the competition changes, with no pair_versions row. None if it has no pair.
 */
export async function unstampedWrite(direct: pg.Client, competitionId: string): Promise<void> {
  const [row] = (
    await direct.query<{ task_id: string; hotkey: string }>(
      'SELECT task_id, hotkey FROM miner_tasks WHERE competition_id = $1 ORDER BY random() LIMIT 1',
      [competitionId],
    )
  ).rows;
  if (!row) return;
  await direct.query('BEGIN');
  await direct.query('UPDATE competition_versions SET version = version + 1 WHERE competition_id = $1', [
    competitionId,
  ]);
  await direct.query(
    'UPDATE miner_tasks SET resolved = 1 - LEAST(resolved, 1) WHERE competition_id = $1 AND task_id = $2 AND hotkey = $3',
    [competitionId, row.task_id, row.hotkey],
  );
  await direct.query('COMMIT');
}
