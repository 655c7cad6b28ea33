// Every service over one set of repositories. Services take plain dependencies and know nothing
// of HTTP: routes call them, and so do the command-line tools.
import type { Store } from '../db/contract.js';
import { auditService } from './audit.js';
import { changesService } from './changes.js';
import { competitionsService } from './competitions.js';
import { coverageService } from './coverage.js';
import { exportsService } from './exports.js';
import { backupService } from './backup.js';
import { importSessionsService } from './importSessions.js';
import { metagraphsService } from './metagraphs.js';
import { judgesService } from './judges.js';
import { minersService } from './miners.js';
import { runsService } from './runs.js';
import { scoresService } from './scores/index.js';
import { signaturesService, type SignatureOptions } from './signatures.js';
import { snapshotsService, type Signer } from './snapshots.js';
import { stabilityService } from './stability.js';
import { documentScorer, type ScoreSettings } from './scoreInWorker.js';
import { ephemeralSigner } from '../signingKey.js';
import { tasksService } from './tasks.js';
import { validatorsService } from './validators.js';
import { writeGate } from './writeGate.js';

export interface ServiceOptions {
  /** Told how long each score computation took, in seconds. */
  observeScoring?: (seconds: number) => void;
  signatures?: SignatureOptions;
  /** The snapshot-signing key; a throwaway one when not given. */
  signer?: Signer;
  /** POST /v1/score's limits (src/services/scoreInWorker.ts has the defaults). */
  scoring?: ScoreSettings;
  /** No heartbeat for this long lists a validator as silent (src/services/liveness.ts). */
  validatorSilentAfterMs?: number;
  /** The competitions' in-memory scoring state, in MB (src/services/residency.ts has the default). */
  memoryBudgetMb?: number;
  /** Bytes kept beside a competition's scores outside the services (src/http/viewBodies.ts), counted toward that budget. */
  bodyBytes?: (competitionId: string) => number;
}

export function createServices(store: Store, options: ServiceOptions = {}) {
  const audit = auditService(store);
  // Every main-connection write passes it; an import committing on its own connection holds it.
  const gate = writeGate();
  const scores = scoresService(
    store,
    options.observeScoring,
    options.memoryBudgetMb === undefined ? undefined : options.memoryBudgetMb * 1024 * 1024,
    options.bodyBytes,
  );
  return {
    audit,
    competitions: competitionsService(store, audit, gate),
    tasks: tasksService(store, audit, gate),
    runs: runsService(store, audit),
    miners: minersService(store, audit),
    metagraphs: metagraphsService(store, audit),
    judges: judgesService(store, audit, gate),
    validators: validatorsService(store, audit, gate, options.validatorSilentAfterMs),
    scores,
    coverage: coverageService(scores, store),
    stability: stabilityService(scores, store),
    snapshots: snapshotsService(store, scores, options.signer ?? ephemeralSigner(), audit),
    score: documentScorer(options.scoring),
    changes: changesService(store),
    exports: exportsService(store),
    signatures: signaturesService(store, gate, options.signatures),
    backup: backupService(store),
    imports: importSessionsService(store, gate),
    writeGate: gate,
    store,
    /** True when the database answers and every migration is applied. */
    ready: () => store.ready(),
  };
}

export type Services = ReturnType<typeof createServices>;
