// Every service over one set of repositories. Services take plain dependencies and know nothing
// of HTTP: routes call them, and so do the command-line tools.
import type { Repos } from '../db/repos.js';
import { isReady } from '../db/client.js';
import { backupService } from './backup.js';
import { changesService } from './changes.js';
import { competitionsService } from './competitions.js';
import { importSessionsService } from './importSessions.js';
import { minersService } from './miners.js';
import { runsService } from './runs.js';
import { scoresService } from './scores.js';
import { tasksService } from './tasks.js';
import { validatorsService } from './validators.js';

export interface ServiceOptions {
  /** Told how long each score computation took, in seconds. */
  observeScoring?: (seconds: number) => void;
}

export function createServices(repos: Repos, options: ServiceOptions = {}) {
  return {
    competitions: competitionsService(repos),
    tasks: tasksService(repos),
    runs: runsService(repos),
    miners: minersService(repos),
    validators: validatorsService(repos),
    scores: scoresService(repos, options.observeScoring),
    changes: changesService(repos),
    backup: backupService(repos.db.$client),
    imports: importSessionsService(repos),
    /** True when the database answers and every migration is applied. */
    ready: () => isReady(repos.db),
  };
}

export type Services = ReturnType<typeof createServices>;
