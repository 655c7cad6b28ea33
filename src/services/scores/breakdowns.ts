// Per-task scores, computed when a breakdown (a miner's, a task's) is asked for: the kept scores
// hold per-miner sums only (./compute.ts). A miner's task scores depend on its runs and the tasks'
// baselines alone, never on other miners, so a breakdown scores only the part of the input it shows.
import type { Store } from '../../db/contract.js';
import { scoreCompetition } from '../../scoring/index.js';
import type { CompetitionInput, EntryList, MinerTaskSummary, TaskScore } from '../../scoring/types.js';
import type { Basis, Scored } from './cache.js';

/**
 * The scores, and of their input the miner's own part (its pairs; every task and miner): enough
 * for its task scores. From the input in hand when there is one. For scores restored at the
 * start whose input is not read yet (its pairs may still be filling, a second or more at 4x the
 * reference competition), the miner's pairs are read straight from the store, a few hundred
 * rows; unless a write came since the scores were saved (`stale`), in which case the whole
 * basis is read, which scores the input it reads. The check follows the read: the two agree.
 */
export async function minerBasis(store: Store, s: Scored, hotkey: string): Promise<Basis> {
  const inHand = s.basisInHand();
  if (!inHand && !s.stale) {
    const { competition, scores } = s;
    const own = await store.scoringInput.minerInput(competition.id, hotkey, competition.tokenWeights);
    if (!s.stale) return { scores, input: { ...own, stages: scores.stages, burnRatio: competition.burnRatio } };
  }
  const { scores, input } = inHand ?? (await s.basis());
  return { scores, input: { ...input, minerTasks: where(input.minerTasks, (e) => e.hotkey === hotkey) } };
}

/** The entries that pass `keep`, in order. */
function where(list: EntryList<MinerTaskSummary>, keep: (e: MinerTaskSummary) => boolean): MinerTaskSummary[] {
  const kept: MinerTaskSummary[] = [];
  for (const e of list) if (keep(e)) kept.push(e);
  return kept;
}

/** A miner's score on each task, from an input holding (at least) its own pairs. */
export function minerTaskScores(input: CompetitionInput, hotkey: string): TaskScore[] {
  return scoreCompetition(input).miners.find((m) => m.hotkey === hotkey)?.tasks ?? [];
}

/** Every miner's score on one task. */
export function taskScores(input: CompetitionInput, taskId: string): TaskScore[] {
  const one = {
    ...input,
    tasks: input.tasks.filter((t) => t.id === taskId),
    minerTasks: where(input.minerTasks, (e) => e.taskId === taskId),
  };
  return scoreCompetition(one).miners.flatMap((m) => m.tasks);
}
