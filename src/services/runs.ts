// Runs: ingesting batches, reading and deleting single runs.
import type { Store } from '../db/store.js';
import type { StoredRun } from '../db/runs.js';
import type { RunInput } from '../schemas/runs.js';
import { forbidden, notFound } from '../errors.js';
import { isValidTokens, weightedTokens } from '../scoring/index.js';
import type { TokenWeights } from '../scoring/types.js';
import { ingestRuns } from './ingestRuns.js';
import { writerId, type Principal } from './principal.js';
import { parseCursor, type AuditService } from './audit.js';

export function runView(run: StoredRun, w: TokenWeights) {
  const weighted = run.tokens ? weightedTokens(run.tokens, w) : null;
  return {
    competitionId: run.competitionId,
    runId: run.runId,
    seq: run.seq,
    taskId: run.taskId,
    kind: run.kind,
    minerHotkey: run.minerHotkey,
    validatorId: run.validatorId,
    attemptNo: run.attemptNo,
    resolved: run.resolved,
    tokens: run.tokens,
    weightedTokens: isValidTokens(weighted) ? weighted : null,
    timeTakenSeconds: run.timeTakenSeconds,
    agentSteps: run.agentSteps,
    criteria: run.criteria,
    rubricVotes: run.rubricVotes,
    createdAt: run.createdAt,
  };
}

export interface RunListQuery {
  validator?: string;
  miner?: string;
  task?: string;
  kind?: 'baseline' | 'miner';
  cursor?: string;
  limit: number;
}

export function runsService(store: Store, audit: AuditService) {
  async function find(db: Store, competitionId: string, runId: string) {
    const competition = await db.competitions.get(competitionId);
    if (!competition) throw notFound(`competition ${competitionId} does not exist`);
    const run = await db.runs.get(competitionId, runId);
    if (!run) throw notFound(`run ${runId} does not exist in competition ${competitionId}`);
    return { competition, run };
  }

  return {
    /** Stores a batch atomically; the writer is recorded on every run, and an admin batch in the audit log. */
    ingest(competitionId: string, runs: RunInput[], who: Principal) {
      return store.transaction(
        async (tx) => {
          const result = await ingestRuns(tx, competitionId, runs, writerId(who));
          if (who.kind === 'admin' && result.accepted > 0) {
            await audit.record(tx, who, 'runs.post', competitionId, `${runs.length} runs`, {
              ...result,
              runIds: runs.slice(0, 20).map((r) => r.runId),
            });
          }
          return result;
        },
        { competitionId },
      );
    },

    /** Stored runs, oldest first, filtered; the cursor stays valid while runs are added. */
    async list(competitionId: string, query: RunListQuery) {
      const competition = await store.competitions.get(competitionId);
      if (!competition) throw notFound(`competition ${competitionId} does not exist`);
      const page = await store.runs.list(competitionId, {
        validatorId: query.validator,
        minerHotkey: query.miner,
        taskId: query.task,
        kind: query.kind,
        after: parseCursor(query.cursor),
        limit: query.limit,
      });
      const last = page.at(-1);
      return {
        runs: page.map((r) => runView(r, competition.tokenWeights)),
        nextCursor: page.length === query.limit && last ? String(last.seq) : null,
      };
    },

    async get(competitionId: string, runId: string) {
      const { competition, run } = await find(store, competitionId, runId);
      return runView(run, competition.tokenWeights);
    },

    /** Deletes a run and its share of every aggregate; a validator may delete only its own runs. */
    delete(competitionId: string, runId: string, who: Principal) {
      return store.transaction(
        async (tx) => {
          const { competition, run } = await find(tx, competitionId, runId);
          if (who.kind === 'validator' && run.validatorId !== who.id) {
            throw forbidden(`run ${runId} was sent by another validator; a validator may delete only its own runs`);
          }
          await tx.runs.delete(run, competition.tokenWeights, new Set(competition.excludedValidators));
          const view = runView(run, competition.tokenWeights);
          await audit.record(tx, who, 'run.delete', competitionId, runId, { run: view });
          return view;
        },
        { competitionId },
      );
    },
  };
}
