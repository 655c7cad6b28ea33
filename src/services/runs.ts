// Reading and deleting single runs.
import type { Principal } from '../auth.js';
import type { Repos } from '../db/repos.js';
import type { StoredRun } from '../db/runs.js';
import { forbidden, notFound } from '../errors.js';
import { isValidTokens, weightedTokens } from '../scoring/index.js';
import type { TokenWeights } from '../scoring/types.js';

export function runView(run: StoredRun, w: TokenWeights) {
  const weighted = run.tokens ? weightedTokens(run.tokens, w) : null;
  return {
    competitionId: run.competitionId,
    runId: run.runId,
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

/** Deletes a run and its share of every aggregate; a validator may delete only its own runs. */
export function deleteRun(repos: Repos, competitionId: string, runId: string, who: Principal) {
  return repos.transaction(() => {
    const competition = repos.competitions.get(competitionId);
    if (!competition) throw notFound(`competition ${competitionId} does not exist`);
    const run = repos.runs.get(competitionId, runId);
    if (!run) throw notFound(`run ${runId} does not exist in competition ${competitionId}`);
    if (who.kind === 'validator' && run.validatorId !== who.id) {
      throw forbidden(`run ${runId} was sent by another validator; a validator may delete only its own runs`);
    }
    repos.runs.delete(run, competition.tokenWeights);
    return runView(run, competition.tokenWeights);
  });
}
