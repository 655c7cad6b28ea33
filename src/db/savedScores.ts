// Scores saved at a graceful shutdown, read back at the next start (SQLite: migration 0004; the
// PostgreSQL twin is src/db/pg/savedScores.ts).
//
// Computing every competition's scores before listening means, at 4x the reference competition,
// reading 332k (task, miner) rows into memory and scoring them: most of a start. The scores
// themselves (per-miner sums, the weights) are a few
// hundred kB, so the server saves them as it shuts down and the next start answers from them: a
// competition's row is read on its first score read after the start, or by the pass that goes
// through every competition once the server listens, and its (task, miner) rows are read in the
// background after that (src/services/scores/warmStart.ts, saved.ts and filling.ts).
//
// A row is used only while it is current. On SQLite a saved row is only ever current: the
// migration's triggers delete a competition's row in any transaction that changes what its scores
// are computed from (settings, tasks, miners, aggregates), whichever process writes. On PostgreSQL
// a row carries the competition's version it stands for, and is used only while that is still the
// version. Rows saved by other scoring code are ignored (`code`).
import type { Db } from './client.js';
import type { CompetitionScores, Stage } from '../scoring/types.js';
import type { SavedScores } from './capabilities.js';

/** The contract's SavedScoresRepo (src/db/contract.ts), synchronously: the SQLite store makes it a promise. */
export interface SyncSavedScoresRepo {
  save(code: string, collect: () => SavedScores[]): number;
  load(code: string, competitionId: string): SavedScores | undefined;
}

/** A stage set as a saved row keeps it: comma-separated. */
export const stagesText = (stages: Stage[]) => stages.join(',');
export const stagesOf = (text: string) => (text === '' ? [] : text.split(',')) as Stage[];

export function savedScoresRepo(db: Db): SyncSavedScoresRepo {
  const c = db.$client;
  const upsert = c.prepare(
    `INSERT INTO saved_scores (competition_id, code, stages, scores, saved_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (competition_id) DO UPDATE SET
       code = excluded.code, stages = excluded.stages, scores = excluded.scores, saved_at = excluded.saved_at`,
  );
  const one = c.prepare('SELECT stages, scores FROM saved_scores WHERE competition_id = ? AND code = ?').raw();

  return {
    /**
     * In one transaction. One process writes the file at a time; the server saves only as it shuts
     * down, after its last write.
     */
    save(code, collect) {
      const entries = collect();
      const at = new Date().toISOString();
      c.transaction(() => {
        for (const e of entries) upsert.run(e.competitionId, code, stagesText(e.stages), JSON.stringify(e.scores), at);
      }).immediate();
      return entries.length;
    },

    /** The competition's saved row of this scoring code: current if there is one (see above). */
    load(code, competitionId) {
      const row = one.get(competitionId, code) as [string, string] | undefined;
      return row && { competitionId, stages: stagesOf(row[0]), scores: JSON.parse(row[1]) as CompetitionScores };
    },
  };
}
