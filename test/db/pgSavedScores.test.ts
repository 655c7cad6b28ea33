// PostgreSQL's saved scores (src/db/pg/savedScores.ts) on a real server: a row records the version
// its process was told up to, read as the scores are collected; of two saves of one competition the
// newer version stays; a start gets back only the rows whose version still holds, and only for
// competitions its process was told nothing of yet.
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/pg/client.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { pgSavedScoresRepo, type ToldVersions } from '../../src/db/pg/savedScores.js';
import type { SavedScores } from '../../src/db/capabilities.js';
import type { CompetitionScores } from '../../src/scoring/types.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgSavedScores.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

/** Scores told apart by one number (their baseline's rate): what is stored is what comes back. */
const scores = (mark: number) =>
  ({ stages: ['evaluation'], miners: [], weights: {}, baseline: { rate: mark } }) as unknown as CompetitionScores;
const markOf = (s: CompetitionScores) => (s.baseline as unknown as { rate: number }).rate;
const entry = (competitionId: string, burnWeight: number): SavedScores => ({
  competitionId,
  stages: ['evaluation'],
  scores: scores(burnWeight),
});

/** A process's bookkeeping, as src/db/pg/open.ts keeps it. */
function bookkeeping(told: Record<string, number> = {}): ToldVersions & { known: Map<string, number> } {
  const known = new Map(Object.entries(told));
  return {
    known,
    told: (competitionId) => known.get(competitionId),
    restore(competitionId, version) {
      if (known.has(competitionId)) return false;
      known.set(competitionId, version);
      return true;
    },
  };
}

describe.runIf(server.available)('saved scores on PostgreSQL', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_saved_scores');
    await migratePostgres(scratch.url);
    pool = await openPostgres(scratch.url, { max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });
  beforeEach(async () => {
    await pool.query('DELETE FROM saved_scores');
    await pool.query('DELETE FROM competition_versions');
    await pool.query(`INSERT INTO competition_versions VALUES ('alpha', 5), ('beta', 2), ('gamma', 1)`);
  });

  const versions = async () =>
    Object.fromEntries(
      (
        await pool.query<{ competition_id: string; version: string }>(
          'SELECT competition_id, version FROM saved_scores',
        )
      ).rows.map((r) => [r.competition_id, Number(r.version)]),
    );

  it('records the version told up to, and skips a competition whose version is unknown', async () => {
    const repo = pgSavedScoresRepo(pool, bookkeeping({ alpha: 5, beta: -1 }));
    const saved = await repo.save('code', () => [entry('alpha', 0.1), entry('beta', 0.2), entry('gamma', 0.3)]);
    expect(saved).toBe(1);
    expect(await versions()).toEqual({ alpha: 5 });
  });

  it('reads the versions in the turn it collects the scores', async () => {
    const told = bookkeeping({ alpha: 4 });
    const repo = pgSavedScoresRepo(pool, told);
    // A write told right after the call (the next turn) does not relabel what was collected.
    const saving = repo.save('code', () => [entry('alpha', 0.1)]);
    told.known.set('alpha', 5);
    await saving;
    expect(await versions()).toEqual({ alpha: 4 });
  });

  it('keeps the newer of two saves of one competition, and a later save of the same version', async () => {
    await pgSavedScoresRepo(pool, bookkeeping({ alpha: 5 })).save('code', () => [entry('alpha', 0.5)]);
    // A replica still at version 4 stops after one at 5 did.
    await pgSavedScoresRepo(pool, bookkeeping({ alpha: 4 })).save('code', () => [entry('alpha', 0.4)]);
    expect(await versions()).toEqual({ alpha: 5 });
    const restored = await pgSavedScoresRepo(pool, bookkeeping()).load('code', 'alpha');
    expect(markOf(restored!.scores)).toBe(0.5);
    // Another build's save at the same version replaces it.
    await pgSavedScoresRepo(pool, bookkeeping({ alpha: 5 })).save('other build', () => [entry('alpha', 0.6)]);
    expect(await pgSavedScoresRepo(pool, bookkeeping()).load('code', 'alpha')).toBeUndefined();
    expect(markOf((await pgSavedScoresRepo(pool, bookkeeping()).load('other build', 'alpha'))!.scores)).toBe(0.6);
  });

  it("gives back a competition's row while its version holds, of this code, counting it as told", async () => {
    await pgSavedScoresRepo(pool, bookkeeping({ alpha: 5, beta: 2, gamma: 1 })).save('code', () => [
      entry('alpha', 0.1),
      entry('beta', 0.2),
      entry('gamma', 0.3),
    ]);
    await pool.query(`UPDATE competition_versions SET version = 3 WHERE competition_id = 'beta'`);
    // This process was told of gamma already (a notification during its start).
    const start = bookkeeping({ gamma: 1 });
    const repo = pgSavedScoresRepo(pool, start);
    const rows = await Promise.all(['alpha', 'beta', 'gamma', 'delta'].map((id) => repo.load('code', id)));
    expect(rows).toEqual([entry('alpha', 0.1), undefined, undefined, undefined]);
    expect(Object.fromEntries(start.known)).toEqual({ alpha: 5, gamma: 1 });
  });
});
