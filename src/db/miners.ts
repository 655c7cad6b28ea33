// Miners of a competition: known from their first run, or marked by the admin.
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { miners } from './schema.js';
import { emitWrite } from './events.js';

import type { MinerRow } from './rows.js';
export type { MinerRow };

export function minersRepo(db: Db) {
  return {
    get(competitionId: string, hotkey: string): MinerRow | null {
      return (
        db
          .select()
          .from(miners)
          .where(and(eq(miners.competitionId, competitionId), eq(miners.hotkey, hotkey)))
          .get() ?? null
      );
    },
    list(competitionId: string): MinerRow[] {
      return db.select().from(miners).where(eq(miners.competitionId, competitionId)).orderBy(asc(miners.hotkey)).all();
    },
    /** Creates or updates the miner's exclusion; returns whether it was created. */
    setExcluded(competitionId: string, hotkey: string, excluded: boolean, reason: string | null): boolean {
      const before = this.get(competitionId, hotkey);
      db.insert(miners)
        .values({ competitionId, hotkey, excluded, reason })
        .onConflictDoUpdate({ target: [miners.competitionId, miners.hotkey], set: { excluded, reason } })
        .run();
      emitWrite(db, { competitionId, kind: 'miners' });
      return before === null;
    },
  };
}
