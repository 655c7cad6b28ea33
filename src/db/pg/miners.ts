// src/db/miners.ts on PostgreSQL.
import type { MinerRow } from '../miners.js';
import type { PgContext } from './context.js';

const COLUMNS = 'competition_id AS "competitionId", hotkey, excluded, reason';

export function pgMinersRepo(ctx: PgContext) {
  return {
    async get(competitionId: string, hotkey: string): Promise<MinerRow | null> {
      const [row] = await ctx.query<MinerRow>(
        `SELECT ${COLUMNS} FROM miners WHERE competition_id = $1 AND hotkey = $2`,
        [competitionId, hotkey],
      );
      return row ?? null;
    },
    list(competitionId: string): Promise<MinerRow[]> {
      return ctx.query<MinerRow>(
        `SELECT ${COLUMNS} FROM miners WHERE competition_id = $1 ORDER BY hotkey COLLATE "C"`,
        [competitionId],
      );
    },
    /** Creates or updates the miner's exclusion; returns whether it was created. */
    setExcluded(competitionId: string, hotkey: string, excluded: boolean, reason: string | null): Promise<boolean> {
      return ctx.write(competitionId, async (c) => {
        // One statement: `before` reads the table as it stood before the upsert.
        const [row] = await c.query<{ existed: boolean }>(
          `WITH before AS (SELECT 1 FROM miners WHERE competition_id = $1 AND hotkey = $2),
            up AS (INSERT INTO miners (competition_id, hotkey, excluded, reason) VALUES ($1, $2, $3, $4)
              ON CONFLICT (competition_id, hotkey) DO UPDATE SET excluded = excluded.excluded, reason = excluded.reason)
          SELECT EXISTS (SELECT 1 FROM before) AS existed`,
          [competitionId, hotkey, excluded, reason],
        );
        c.emit({ competitionId, kind: 'miners' });
        return !row!.existed;
      });
    },
  };
}
