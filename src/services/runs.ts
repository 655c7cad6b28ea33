// Runs: ingesting batches, reading and deleting single runs.
import type { Store } from '../db/contract.js';
import { isStaleRun, type JudgeInForce } from '../db/plan/runBatch.js';
import type { StoredRun } from '../db/runs.js';
import type { RunInput } from '../schemas/runs.js';
import { forbidden, notFound } from '../errors.js';
import { isValidTokens, weightedTokens } from '../scoring/index.js';
import type { CriterionGrade, TokenWeights } from '../scoring/types.js';
import { ingestRuns } from './ingestRuns.js';
import { revealsAnswers, writerId, type Principal } from './principal.js';
import { admitRunWriter } from './validatorVersion.js';
import { parseCursor, type AuditService } from './audit.js';

/** A run's graded criteria (stored in rubric order), each named by its position; its id only when `reveal`. */
export function criteriaView(grades: readonly CriterionGrade[], reveal: boolean) {
  return grades.map(({ criterionId, ...grade }, position) => ({
    position,
    ...(reveal ? { criterionId } : {}),
    ...grade,
  }));
}

/**
 * A QnA run's grading and votes, each criterion named by its position in the task's rubric (the
 * grading is in rubric order). The answer key, criterion ids and the judge's reasons and evidence
 * (which quote and weigh the rubric), only when `reveal` (the admin, or a competition that reveals
 * answers), as in task reads.
 */
function gradingView(run: StoredRun, reveal: boolean) {
  if (!run.criteria) return { criteria: null, rubricVotes: null };
  const position = new Map(run.criteria.map((c, i) => [c.criterionId, i]));
  const criteria = criteriaView(run.criteria, reveal);
  const rubricVotes =
    run.rubricVotes
      ?.map(({ criterionId, votes }) => ({
        // Every vote names a criterion of the rubric (src/scoring/gradeRubric.ts), which cannot change once runs exist.
        position: position.get(criterionId)!,
        ...(reveal ? { criterionId, votes } : { votes: votes.map(({ verdict }) => ({ verdict })) }),
      }))
      // As sent for the admin; by position where the ids are left out (the order would tell them).
      .sort((a, b) => (reveal ? 0 : a.position - b.position)) ?? null;
  return { criteria, rubricVotes };
}

/**
 * The judge configuration in force as the stale rule reads it for runs of `taskIds` (SPEC 12):
 * null when none is set; else its digest and which of those tasks are QnA tasks.
 */
export async function judgeInForce(db: Store, competitionId: string, taskIds: Iterable<string>) {
  const digest = (await db.judges.latest(competitionId))?.digest ?? null;
  if (digest === null) return null;
  const tasks = await db.tasks.rubrics(competitionId, [...new Set(taskIds)]);
  const qnaTasks = new Set([...tasks].filter(([, t]) => t?.type === 'swe_atlas_qna').map(([id]) => id));
  return { digest, qnaTasks } satisfies JudgeInForce;
}

export function runView(run: StoredRun, w: TokenWeights, reveal: boolean, judge: JudgeInForce | null) {
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
    ...gradingView(run, reveal),
    judge: run.judgeDigest ? { digest: run.judgeDigest } : null,
    answerDate: run.answerDate ?? null,
    stale: isStaleRun(run, judge),
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
    return { competition, run, judge: await judgeInForce(db, competitionId, [run.taskId]) };
  }

  return {
    /** Refuses a validator that may not write runs to the competition (./validatorVersion.ts); the admin passes. */
    admitWriter: (competitionId: string, who: Principal) => admitRunWriter(store, competitionId, who),
    /**
     * Stores a batch atomically; the writer is recorded on every run, and an admin batch in the
     * audit log. `text`: the JSON text `runs` were parsed from, when they are that parse as sent.
     */
    ingest(competitionId: string, runs: RunInput[], who: Principal, text?: string) {
      return store.transaction(
        async (tx) => {
          // Read once for both: each statement inside the competition's turn delays its next writer.
          const competition = await tx.competitions.get(competitionId);
          // Again in the transaction: the key may have been revoked, the list or version changed, while the body came.
          await admitRunWriter(tx, competitionId, who, competition);
          const result = await ingestRuns(tx, competitionId, runs, writerId(who), competition, text);
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
    async list(competitionId: string, query: RunListQuery, who: Principal | null) {
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
      const reveal = revealsAnswers(competition, who);
      const judge = await judgeInForce(
        store,
        competitionId,
        page.map((r) => r.taskId),
      );
      return {
        runs: page.map((r) => runView(r, competition.tokenWeights, reveal, judge)),
        nextCursor: page.length === query.limit && last ? String(last.seq) : null,
      };
    },

    async get(competitionId: string, runId: string, who: Principal | null) {
      const { competition, run, judge } = await find(store, competitionId, runId);
      return runView(run, competition.tokenWeights, revealsAnswers(competition, who), judge);
    },

    /** Deletes a run and its share of every aggregate; a validator may delete only its own runs. */
    delete(competitionId: string, runId: string, who: Principal) {
      return store.transaction(
        async (tx) => {
          const { competition, run, judge } = await find(tx, competitionId, runId);
          await admitRunWriter(tx, competitionId, who, competition);
          if (who.kind === 'validator' && run.validatorId !== who.id) {
            throw forbidden(`run ${runId} was sent by another validator; a validator may delete only its own runs`);
          }
          await tx.runs.delete(run, competition.tokenWeights, new Set(competition.excludedValidators), judge);
          // Whole in the audit log (the admin's); as its sender reads it in the answer.
          await audit.record(tx, who, 'run.delete', competitionId, runId, {
            run: runView(run, competition.tokenWeights, true, judge),
          });
          return runView(run, competition.tokenWeights, revealsAnswers(competition, who), judge);
        },
        { competitionId },
      );
    },
  };
}
