// Scores saved at a graceful shutdown, read back at the next start (SQLite; migration 0004).
//
// A start used to compute every competition's scores before listening: at 4x the reference
// competition that is reading 332k (task, miner) rows into memory and scoring them, about 2 s of
// a 3 s start (bench/, issue 13). The scores themselves (per-miner sums, the weights) are a few
// hundred kB, so the server saves them as it shuts down and the next start answers from them while
// the (task, miner) rows are read in the background (src/services/scores.ts).
//
// A saved row is only ever current: the migration's triggers delete a competition's row in any
// transaction that changes what its scores are computed from (settings, tasks, miners, aggregates),
// whichever process writes. Rows saved by other scoring code are ignored (`code`).
import type { Db } from './client.js';
import type { CompetitionScores, Stage } from '../scoring/types.js';

export interface SavedScores {
  competitionId: string;
  /** The stage set scored. */
  stages: Stage[];
  scores: CompetitionScores;
}

export function savedScoresRepo(db: Db) {
  const c = db.$client;
  const upsert = c.prepare(
    `INSERT INTO saved_scores (competition_id, code, stages, scores, saved_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (competition_id) DO UPDATE SET
       code = excluded.code, stages = excluded.stages, scores = excluded.scores, saved_at = excluded.saved_at`,
  );
  const byCode = c.prepare('SELECT competition_id, stages, scores FROM saved_scores WHERE code = ?').raw();

  return {
    /**
     * Saves scores that stand for the data as it is now, in one transaction. The caller vouches for
     * that: the server saves only as it shuts down, after its last write, the scores it has kept
     * since the last write to each competition.
     */
    save(entries: SavedScores[], code: string): void {
      const at = new Date().toISOString();
      c.transaction(() => {
        for (const e of entries) upsert.run(e.competitionId, code, e.stages.join(','), JSON.stringify(e.scores), at);
      }).immediate();
    },

    /** Every saved row of this scoring code (each current: see above). */
    load(code: string): SavedScores[] {
      return (byCode.all(code) as [string, string, string][]).map(([competitionId, stages, scores]) => ({
        competitionId,
        stages: (stages === '' ? [] : stages.split(',')) as Stage[],
        scores: JSON.parse(scores) as CompetitionScores,
      }));
    },
  };
}

export type SavedScoresRepo = ReturnType<typeof savedScoresRepo>;
