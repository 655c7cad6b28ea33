// Miners' standing: the admin excludes or reinstates a miner.
import type { Store } from '../db/contract.js';
import { notFound } from '../errors.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';

export function minersService(store: Store, audit: AuditService) {
  return {
    /** Creates or updates the miner's exclusion; `created` when the miner was unknown. */
    setExclusion(competitionId: string, hotkey: string, input: { excluded: boolean; reason?: string }, who: Principal) {
      return store.transaction(
        async (tx) => {
          if (!(await tx.competitions.get(competitionId)))
            throw notFound(`competition ${competitionId} does not exist`);
          const created = await tx.miners.setExcluded(competitionId, hotkey, input.excluded, input.reason ?? null);
          const m = (await tx.miners.get(competitionId, hotkey))!;
          await audit.record(tx, who, input.excluded ? 'miner.exclude' : 'miner.include', competitionId, hotkey, {
            excluded: input.excluded,
            reason: input.reason ?? null,
          });
          return { created, miner: { competitionId, hotkey, excluded: m.excluded, reason: m.reason } };
        },
        { competitionId },
      );
    },
  };
}
