// Metagraphs (SPEC 11): the operator records one per competition; every version is kept and
// audited, the latest is in force. Recording one drops the competition's cached weights on chain
// (a write event of the repository), nothing else: scores do not depend on it.
import type { Store } from '../db/contract.js';
import type { MetagraphRow } from '../db/metagraphs.js';
import { badRequest, notFound } from '../errors.js';
import { canonicalJson } from '../snapshots/canonicalJson.js';
import {
  metagraphDigest,
  BITTENSOR_SS58_PREFIX,
  metagraphProblems,
  normalizeMetagraph,
  type Metagraph,
  type MetagraphInput,
} from '../snapshots/metagraph.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';
import { noVersion, versionedView } from './versionedDocuments.js';

const metagraphView = (row: MetagraphRow) => versionedView<Metagraph>(row);

export function metagraphsService(store: Store, audit: AuditService) {
  return {
    /**
     * Records a new version, unless this one is in force already; a 400 naming each neuron at fault
     * (by index) stores nothing.
     */
    put(competitionId: string, input: MetagraphInput, who: Principal) {
      const problems = metagraphProblems(input.neurons, { prefix: BITTENSOR_SS58_PREFIX });
      if (problems.length > 0) {
        const errors = problems.map((p) => ({ path: ['body', ...p.path].join('/'), message: p.message }));
        throw badRequest(`metagraph: ${errors[0]!.path}: ${errors[0]!.message}`, errors);
      }
      const metagraph = normalizeMetagraph(input);
      const digest = metagraphDigest(metagraph);
      return store.transaction(
        async (tx) => {
          if (!(await tx.competitions.get(competitionId)))
            throw notFound(`competition ${competitionId} does not exist`);
          // PUT is idempotent: the metagraph in force sent again records no version, no audit entry.
          const inForce = await tx.metagraphs.latest(competitionId);
          if (inForce?.digest === digest) return metagraphView(inForce);
          const row = await tx.metagraphs.record(competitionId, canonicalJson(metagraph), digest);
          const { neurons, ...rest } = metagraph;
          await audit.record(tx, who, 'metagraph.record', competitionId, competitionId, {
            ...rest,
            neurons: neurons.length,
            version: row.version,
            digest,
          });
          return metagraphView(row);
        },
        { competitionId },
      );
    },

    /** The metagraph in force; not found when the competition or a metagraph is missing. */
    async get(competitionId: string) {
      const row = await store.metagraphs.latest(competitionId);
      if (row) return metagraphView(row);
      return noVersion(store, competitionId, `competition ${competitionId} has no metagraph; PUT one to …/metagraph`);
    },
  };
}
