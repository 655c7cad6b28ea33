// Write events: every repository write tells what it changed, inside its transaction. This is the
// one signal readers of derived state follow: the in-memory scoring input re-reads the (task,
// miner) rows named, and the score cache drops the competition (src/services/scores/cache.ts). A write
// that rolls back has told of a change that did not happen, which costs only a re-read.
import type { Db } from './client.js';

export type WriteEvent =
  /** One (task, miner) aggregate row changed; `pair` is `pairKey(taskId, hotkey)`. */
  | { competitionId: string; kind: 'pair'; pair: string }
  /** Every aggregate of the competition was rebuilt (e.g. new token weights), or may have been. */
  | { competitionId: string; kind: 'rebuild' }
  /**
   * Another server process wrote to the competition (PostgreSQL): anything of it may have changed;
   * the pairs it changed are found by their stamps (src/db/pg/scoringInput.ts).
   */
  | { competitionId: string; kind: 'peer' }
  /** Settings, tasks or miners changed; the aggregates did not. */
  | { competitionId: string; kind: 'settings' | 'tasks' | 'miners' }
  /** A metagraph was recorded (SPEC 11): the weights on chain change, the scores do not. */
  | { competitionId: string; kind: 'metagraph' }
  /**
   * Runs that enter no aggregate (an excluded validator's, or stale under the judge in force) were
   * stored or deleted: the scores stay as they are, what reads the stored runs does not (SPEC 10's
   * validators table, which compares an excluded validator with the others).
   */
  | { competitionId: string; kind: 'runs' };

export type WriteListener = (event: WriteEvent) => void;

const listenersByConnection = new WeakMap<object, Set<WriteListener>>();

/** The listeners of one database connection (repositories over the same connection share them). */
export function writeListeners(db: Db): Set<WriteListener> {
  let listeners = listenersByConnection.get(db.$client);
  if (!listeners) listenersByConnection.set(db.$client, (listeners = new Set()));
  return listeners;
}

export function emitWrite(db: Db, event: WriteEvent): void {
  for (const listener of writeListeners(db)) listener(event);
}

/** Key of a (task, miner) pair; identifiers never contain NUL. */
export const pairKey = (taskId: string, hotkey: string) => `${taskId}\u0000${hotkey}`;
