// Every service over one set of repositories. Services take plain dependencies and know nothing
// of HTTP: routes call them, and so do the command-line tools.
import type { Repos } from '../db/repos.js';
import { isReady } from '../db/client.js';
import { auditService } from './audit.js';
import { changesService } from './changes.js';
import { competitionsService } from './competitions.js';
import { exportsService } from './exports.js';
import { backupService } from './backup.js';
import { importSessionsService } from './importSessions.js';
import { minersService } from './miners.js';
import { runsService } from './runs.js';
import { scoresService } from './scores.js';
import { signaturesService, type SignatureOptions } from './signatures.js';
import { snapshotsService, type Signer } from './snapshots.js';
import { scoreInputDocument } from './offline.js';
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
}

export function createServices(repos: Repos, options: ServiceOptions = {}) {
  const audit = auditService(repos);
  // Every main-connection write passes it; an import committing on its own connection holds it.
  const gate = writeGate();
  const scores = scoresService(repos, options.observeScoring);
  return {
    audit,
    competitions: competitionsService(repos, audit),
    tasks: tasksService(repos, audit, gate),
    runs: runsService(repos, audit),
    miners: minersService(repos, audit),
    validators: validatorsService(repos, audit),
    scores,
    snapshots: snapshotsService(repos, scores, options.signer ?? ephemeralSigner(), audit),
    score: scoreInputDocument,
    changes: changesService(repos),
    exports: exportsService(repos),
    signatures: signaturesService(repos, gate, options.signatures),
    backup: backupService(repos.db.$client),
    imports: importSessionsService(repos, gate),
    writeGate: gate,
    /** True when the database answers and every migration is applied. */
    ready: () => isReady(repos.db),
  };
}

export type Services = ReturnType<typeof createServices>;
