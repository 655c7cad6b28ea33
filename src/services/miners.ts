// Miners' standing: the admin excludes or reinstates a miner.
import type { Repos } from '../db/repos.js';
import { notFound } from '../errors.js';

export function minersService(repos: Repos) {
  return {
    /** Creates or updates the miner's exclusion; `created` when the miner was unknown. */
    setExclusion(competitionId: string, hotkey: string, input: { excluded: boolean; reason?: string }) {
      return repos.transaction(() => {
        if (!repos.competitions.get(competitionId)) throw notFound(`competition ${competitionId} does not exist`);
        const created = repos.miners.setExcluded(competitionId, hotkey, input.excluded, input.reason ?? null);
        const m = repos.miners.get(competitionId, hotkey)!;
        return { created, miner: { competitionId, hotkey, excluded: m.excluded, reason: m.reason } };
      });
    },
  };
}
