// The periodic snapshot pass (SCORING_SNAPSHOT_INTERVAL, src/server.ts): a snapshot of each
// competition whose input, stages or settings changed since its last one. Finding that out the
// long way reads the competition's scoring input, scores it and digests every run (seconds of CPU
// at the reference size, while the pass holds the write gate). So a competition is first compared
// with its last snapshot the short way, without its runs, and skipped when nothing that snapshot's
// input digest covers has changed:
//   - the input's head as a snapshot taken now would write it (settings, tasks, miners and their
//     exclusions, the excluded validators, the metagraph and the judge configuration in force, the
//     run count summed from the aggregates), against the head the snapshot stored;
//   - no run of the competition deleted since the snapshot's run sequence (the number its last
//     deletion took: the last key of its deleted runs);
//   - the stages and the settings the snapshot names, and the rules it was scored under.
// The runs then are the snapshot's: with the same excluded validators and judge configuration,
// which decide the runs that count, and none deleted, the runs that count now are the snapshot's
// and those stored since, so as many as the snapshot counted means none stored since (a stored
// run's line never changes). Same head, same runs: the snapshot's input digest; the skip is exactly
// the long way's "same". Anything else goes the long way, which decides as before. The run count
// is read before what could lower it (deletions, exclusions, the judge configuration), so a write
// landing between the reads cannot hide one before them; a write the reads straddle otherwise (on
// PostgreSQL they are not one snapshot) is seen by the next pass.
//
// The long way can find a competition unchanged although runs of it were deleted (a run deleted
// and sent again): it remembers, for that snapshot, the run sequence it looked through, and the
// short way takes deletions after that, so the next passes skip it too. Kept in memory: after a
// restart such a competition is looked at the long way once.
import type { CompetitionSettings } from '../db/competitions.js';
import type { Store } from '../db/contract.js';
import { RULES_VERSION } from '../scoring/index.js';
import { normalizeStages } from '../scoring/stages.js';
import type { Stage } from '../scoring/types.js';
import type { snapshotInput } from './snapshotInput.js';

/** A snapshot's document, as far as the pass reads it. */
export type Snapshot = Record<string, unknown> & {
  seq: number;
  takenAt: string;
  hash: string;
  inputDigest: string;
  stages: Stage[];
  settings?: unknown;
};

/** The settings a snapshot names: the judge configuration's digest (SPEC 12) when one is in force. */
export const settingsOf = (c: CompetitionSettings, judge: string | null) => ({
  name: c.name,
  tokenWeights: c.tokenWeights,
  burnRatio: c.burnRatio,
  judgeVotes: c.judgeVotes,
  finalStages: c.finalStages,
  ...(judge ? { judgeDigest: judge } : {}),
});

/**
 * Whether the last snapshot names these stages and settings, and was scored under these rules (its
 * input digest compared apart): one scored under other rules fails a verifier of these whole.
 */
export const sameOutline = (last: Snapshot, stages: readonly Stage[], settings: ReturnType<typeof settingsOf>) =>
  last.rulesVersion === RULES_VERSION &&
  JSON.stringify(last.stages) === JSON.stringify(stages) &&
  JSON.stringify(last.settings) === JSON.stringify(settings);

/** The long way: a snapshot if anything changed; `looked` is told the run sequence it looked through when nothing did. */
type Take = (competitionId: string, looked: (seq: number, runSeq: number) => void) => Promise<string | null>;

export function snapshotPass(store: Store, inputHead: ReturnType<typeof snapshotInput>['inputHead'], take: Take) {
  /** Per competition: its latest snapshot the long way found unchanged, and the run sequence it looked through. */
  const lookedThrough = new Map<string, { seq: number; runSeq: number }>();

  /** The short way: true when nothing the competition's last snapshot covers has changed. */
  const unchanged = (competitionId: string): Promise<boolean> =>
    store.transaction(async (tx) => {
      const previous = await tx.snapshots.latest(competitionId);
      if (!previous) return false;
      const runs = await tx.snapshots.countedRuns(competitionId);
      const looked = lookedThrough.get(competitionId);
      const through = looked?.seq === previous.seq ? Math.max(looked.runSeq, previous.runSeq) : previous.runSeq;
      if ((await tx.snapshots.lastDeletedSeq(competitionId)) > through) return false;
      const c = await tx.competitions.get(competitionId);
      if (!c) return false;
      const { head, judge } = await inputHead(tx, c, runs);
      if (head !== previous.inputHead) return false;
      const stages = normalizeStages(c.finalStages) ?? [];
      return sameOutline(JSON.parse(previous.document) as Snapshot, stages, settingsOf(c, judge));
    });

  /** Takes a snapshot of each competition whose input, stages or settings changed since its last one. */
  return async function takeChanged(failed: (competitionId: string, err: unknown) => void): Promise<number> {
    let taken = 0;
    // One competition's failure (its data, its size) is its own: the ones after it are still taken.
    for (const { id } of await store.competitions.list()) {
      try {
        if (await unchanged(id)) continue;
        const looked = (seq: number, runSeq: number) => lookedThrough.set(id, { seq, runSeq });
        if (await take(id, looked)) {
          taken++;
          lookedThrough.delete(id);
        }
      } catch (err) {
        failed(id, err);
      }
    }
    return taken;
  };
}
