// Competition settings. A competition read shows settings, counts and the baseline's resolve rate
// straight from the aggregates: it never computes scores.
import type { Store } from '../db/store.js';
import type { CompetitionSettings, CompetitionUpsert } from '../db/competitions.js';
import { notFound } from '../errors.js';
import { resolveRate } from '../scoring/index.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';

export function competitionsService(store: Store, audit: AuditService) {
  async function view(c: CompetitionSettings, db: Store = store) {
    const baseline = await db.competitions.baselineTotals(c.id, c.finalStages);
    return {
      ...c,
      counts: await db.competitions.counts(c.id),
      baseline: { ...baseline, resolveRate: resolveRate(baseline.resolved, baseline.runs) },
    };
  }

  async function get(id: string) {
    const c = await store.competitions.get(id);
    if (!c) throw notFound(`competition ${id} does not exist`);
    return view(c);
  }

  return {
    get,
    list: async () => Promise.all((await store.competitions.list()).map((c) => view(c))),
    /** Creates or updates; fields left out keep their stored value (or the default on creation). */
    put(id: string, input: CompetitionUpsert, who: Principal) {
      return store.transaction(
        async (tx) => {
          const { competition, created } = await tx.competitions.upsert(id, input);
          await audit.record(tx, who, created ? 'competition.create' : 'competition.update', id, id, { ...input });
          return { created, competition: await view(competition, tx) };
        },
        { competitionId: id },
      );
    },
    /** The competition's settings; not found when it does not exist. */
    async require(id: string): Promise<CompetitionSettings> {
      const c = await store.competitions.get(id);
      if (!c) throw notFound(`competition ${id} does not exist`);
      return c;
    },
  };
}
