// Competition settings. A competition read shows settings, counts and the baseline's resolve rate
// straight from the aggregates: it never computes scores.
import type { Repos } from '../db/repos.js';
import type { CompetitionSettings, CompetitionUpsert } from '../db/competitions.js';
import { notFound } from '../errors.js';
import { resolveRate } from '../scoring/index.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';

export function competitionsService(repos: Repos, audit: AuditService) {
  function view(c: CompetitionSettings) {
    const baseline = repos.competitions.baselineTotals(c.id, c.finalStages);
    return {
      ...c,
      counts: repos.competitions.counts(c.id),
      baseline: { ...baseline, resolveRate: resolveRate(baseline.resolved, baseline.runs) },
    };
  }

  function get(id: string) {
    const c = repos.competitions.get(id);
    if (!c) throw notFound(`competition ${id} does not exist`);
    return view(c);
  }

  return {
    get,
    list: () => repos.competitions.list().map(view),
    /** Creates or updates; fields left out keep their stored value (or the default on creation). */
    put(id: string, input: CompetitionUpsert, who: Principal) {
      return repos.transaction(() => {
        const { competition, created } = repos.competitions.upsert(id, input);
        audit.record(who, created ? 'competition.create' : 'competition.update', id, id, { ...input });
        return { created, competition: view(competition) };
      });
    },
    /** The competition's settings; not found when it does not exist. */
    require(id: string): CompetitionSettings {
      const c = repos.competitions.get(id);
      if (!c) throw notFound(`competition ${id} does not exist`);
      return c;
    },
  };
}
