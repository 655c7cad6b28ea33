// src/db/savedScores.ts on PostgreSQL: scores saved as a server process shuts down, each with the
// competition's version it stands for, and restored at a start while that is still the version.
//
// A process's scores stand for the version its listeners have been told up to (src/db/pg/open.ts
// keeps it: its own commits told exactly, other processes' as they are seen), because the scores
// service drops a competition's scores on every event. So `save` records that version, read in
// the same turn as the scores are collected. A write by any process since bumps the version, and
// the row is no longer restored: no triggers, and a replica that saves late cannot make a newer
// row look stale or an older one current.
//
// A competition's row is read on its first score read after the start, before that read catches up
// with other processes' writes (src/services/scores/saved.ts). A restored competition counts as told
// up to the row's version: that read then finds nothing new and keeps the restored scores, unless
// another process wrote since, which it sees as usual. Should the process have been told of the
// competition already (a notification, a write of its own), its row is not restored.
import type { SavedScoresRepo } from '../capabilities.js';
import { stagesOf, stagesText } from '../savedScores.js';
import type { CompetitionScores } from '../../scoring/types.js';
import type pg from 'pg';
import { runQuery } from './context.js';

/** The process's bookkeeping of what its listeners were told (src/db/pg/open.ts). */
export interface ToldVersions {
  /** The version told up to; undefined when nothing was, below 1 when unknown (to be read again). */
  told(competitionId: string): number | undefined;
  /** Counts the competition as told up to `version` if nothing was told of it yet; answers whether it did. */
  restore(competitionId: string, version: number): boolean;
}

/** Keeps the newer of two rows for the same competition (replicas shutting down one after another). */
const UPSERT = `INSERT INTO saved_scores (competition_id, code, stages, version, scores, saved_at)
  SELECT u.competition_id, $1, u.stages, u.version, u.scores, $2
  FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[]) AS u(competition_id, stages, version, scores)
  ON CONFLICT (competition_id) DO UPDATE SET
    code = excluded.code, stages = excluded.stages, version = excluded.version, scores = excluded.scores,
    saved_at = excluded.saved_at
  WHERE saved_scores.version <= excluded.version`;

const CURRENT = `SELECT s.competition_id, s.stages, s.version, s.scores FROM saved_scores s
  JOIN competition_versions v ON v.competition_id = s.competition_id AND v.version = s.version
  WHERE s.code = $1 AND s.competition_id = $2`;

export function pgSavedScoresRepo(pool: pg.Pool, versions: ToldVersions): SavedScoresRepo {
  return {
    async save(code, collect) {
      // In this turn, before any await: the scores and the versions they stand for.
      const entries = collect().flatMap((e) => {
        const version = versions.told(e.competitionId);
        return version !== undefined && version >= 1 ? [{ ...e, version }] : [];
      });
      if (entries.length === 0) return 0;
      await runQuery(
        pool,
        UPSERT,
        [
          code,
          new Date().toISOString(),
          entries.map((e) => e.competitionId),
          entries.map((e) => stagesText(e.stages)),
          entries.map((e) => e.version),
          entries.map((e) => JSON.stringify(e.scores)),
        ],
        { name: 'pg_saved_scores_upsert' },
      );
      return entries.length;
    },

    async load(code, competitionId) {
      const { rows } = await runQuery(pool, CURRENT, [code, competitionId], {
        array: true,
        name: 'pg_saved_scores_current',
      });
      const row = rows[0] as [string, string, number, string] | undefined;
      if (!row || !versions.restore(competitionId, row[2])) return undefined;
      return { competitionId, stages: stagesOf(row[1]), scores: JSON.parse(row[3]) as CompetitionScores };
    },
  };
}
