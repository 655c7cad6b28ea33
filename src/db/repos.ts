// All repositories over one database, and the transaction that lets a request combine them.
import type { Db } from './client.js';
import type { TokenWeights } from '../scoring/types.js';
import { auditRepo } from './audit.js';
import { rebuildAggregates } from './aggregates.js';
import { competitionsRepo } from './competitions.js';
import { exportsRepo } from './exports.js';
import { metagraphsRepo } from './metagraphs.js';
import { judgesRepo } from './judges.js';
import { minersRepo } from './miners.js';
import { noncesRepo } from './nonces.js';
import { runsRepo } from './runs.js';
import { scoringInputRepo } from './scoringInput.js';
import { snapshotsRepo } from './snapshots.js';
import { tasksRepo } from './tasks.js';
import { validatorsRepo } from './validators.js';

export function createRepos(db: Db) {
  return {
    db,
    competitions: competitionsRepo(db),
    tasks: tasksRepo(db),
    runs: runsRepo(db),
    miners: minersRepo(db),
    validators: validatorsRepo(db),
    scoringInput: scoringInputRepo(db),
    nonces: noncesRepo(db),
    audit: auditRepo(db),
    snapshots: snapshotsRepo(db),
    exports: exportsRepo(db),
    metagraphs: metagraphsRepo(db),
    judges: judgesRepo(db),
    aggregates: {
      /** Recomputes a competition's aggregates from its counted runs (src/db/aggregates.ts). */
      rebuild: (competitionId: string, w: TokenWeights) => rebuildAggregates(db, competitionId, w),
    },
    /**
     * better-sqlite3 transactions are synchronous; nested calls become savepoints. `immediate`
     * takes the write lock at BEGIN, where SQLite's busy_timeout applies (a deferred transaction
     * that has read fails at once on a lock another connection holds).
     */
    transaction<T>(fn: () => T, begin: 'deferred' | 'immediate' = 'deferred'): T {
      const tx = db.$client.transaction(fn);
      return begin === 'immediate' ? tx.immediate() : tx();
    },
  };
}

export type Repos = ReturnType<typeof createRepos>;
