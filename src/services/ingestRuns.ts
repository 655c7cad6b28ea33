// Turns a validated batch into stored runs: task checks, QnA grading, idempotency, one transaction.
import type { Repos } from '../db/repos.js';
import type { RunRecord } from '../db/runs.js';
import type { RunInput } from '../schemas/runs.js';
import { conflict, listSome, notFound, unprocessable, type ErrorField } from '../errors.js';
import { gradeRubric } from '../scoring/index.js';
import type { Criterion, RubricProblem } from '../scoring/types.js';

export interface IngestResult {
  accepted: number;
  duplicates: number;
}

const problemText: Record<RubricProblem['kind'], string> = {
  missing: 'has no votes',
  unknown: 'is not in the task\'s rubric',
  repeated: 'is voted on more than once',
  vote_count: 'has the wrong number of votes',
};

/**
 * A run's content in a fixed field order. A resent run id is compared with the stored run this
 * way, so nothing is computed for the (usual) new run. Votes keep the schema's key order both
 * when parsed and when read back from their stored JSON.
 */
function content(r: RunRecord): string {
  const t = r.tokens;
  return JSON.stringify([r.taskId, r.kind, r.minerHotkey, r.attemptNo, r.resolved, t ? [t.input, t.cachedInput, t.output] : null,
    r.timeTakenSeconds, r.agentSteps, r.rubricVotes]);
}

export function ingestRuns(repos: Repos, competitionId: string, runs: RunInput[], validatorId: string | null): IngestResult {
  return repos.transaction(() => {
    const competition = repos.competitions.get(competitionId);
    if (!competition) throw notFound(`competition ${competitionId} does not exist`);

    const rubrics = new Map<string, { type: string; criteria: Criterion[] } | null>();
    for (const id of new Set(runs.map((r) => r.taskId))) {
      const task = repos.tasks.get(competitionId, id);
      rubrics.set(id, task ? { type: task.type, criteria: repos.tasks.criteria(competitionId, id) as Criterion[] } : null);
    }
    const unknown = [...rubrics].filter(([, t]) => t === null).map(([id]) => id);
    if (unknown.length > 0) {
      throw notFound(`unknown task ${listSome(unknown)} in competition ${competitionId}`,
        unknown.map((id) => ({ path: `body/runs/taskId`, message: `task ${id} does not exist` })));
    }

    const invalid: ErrorField[] = [];
    const records: RunRecord[] = runs.map((r, i) => {
      const task = rubrics.get(r.taskId)!;
      let resolved = r.resolved ?? false;
      let criteria: RunRecord['criteria'] = null;
      if (r.rubricVotes) {
        const where = `run ${r.runId} on task ${r.taskId}`;
        if (task.type !== 'swe_atlas_qna' || task.criteria.length === 0) {
          invalid.push({ path: `body/runs/${i}/rubricVotes`, message: `${where}: votes sent for a task without a rubric` });
        } else {
          const grade = gradeRubric(task.criteria, r.rubricVotes, competition.judgeVotes);
          if (!grade.ok) {
            const p = grade.problem;
            const extra = p.kind === 'vote_count' ? ` (${p.actual}, expected ${p.expected})` : '';
            invalid.push({ path: `body/runs/${i}/rubricVotes`, message: `${where}: criterion ${p.criterionId} ${problemText[p.kind]}${extra}` });
          } else if (r.resolved !== undefined && r.resolved !== grade.resolved) {
            invalid.push({ path: `body/runs/${i}/resolved`, message: `${where}: resolved ${r.resolved} contradicts the votes, which give ${grade.resolved}` });
          } else {
            resolved = grade.resolved;
            criteria = grade.criteria;
          }
        }
      }
      return {
        competitionId, runId: r.runId, taskId: r.taskId, kind: r.kind, minerHotkey: r.minerHotkey ?? null, validatorId,
        attemptNo: r.attemptNo ?? null, resolved,
        tokens: r.tokens ? { input: r.tokens.input, cachedInput: r.tokens.cachedInput ?? null, output: r.tokens.output } : null,
        timeTakenSeconds: r.timeTakenSeconds ?? null, agentSteps: r.agentSteps ?? null,
        rubricVotes: r.rubricVotes ?? null, criteria,
      };
    });
    if (invalid.length > 0) throw unprocessable(invalid.slice(0, 20).map((e) => e.message).join('; '), invalid);

    const stored = repos.runs.existing(competitionId, records.map((r) => r.runId));
    const conflicts = records.filter((r) => {
      const old = stored.get(r.runId);
      return old !== undefined && content(old) !== content(r);
    }).map((r) => r.runId);
    if (conflicts.length > 0) {
      throw conflict(`runId ${listSome(conflicts)} already stored with different content`,
        conflicts.map((id) => ({ path: 'body/runs/runId', message: `run ${id} already stored with different content` })));
    }
    const fresh = records.filter((r) => !stored.has(r.runId));
    repos.runs.insertMany(fresh, competition.tokenWeights, new Set(competition.excludedValidators));
    return { accepted: fresh.length, duplicates: records.length - fresh.length };
  });
}
