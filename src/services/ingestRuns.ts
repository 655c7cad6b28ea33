// Turns a validated batch into stored runs: task checks, QnA grading, idempotency. Runs inside the
// caller's transaction (services/runs.ts), which also holds the audit entry: one commit per batch,
// and nothing stored when the batch is refused.
import type { CompetitionSettings } from '../db/competitions.js';
import type { Store } from '../db/contract.js';
import type { JudgeRow } from '../db/judges.js';
import type { RunRecord } from '../db/runs.js';
import type { JudgeInput } from '../schemas/judge.js';
import type { RunInput } from '../schemas/runs.js';
import { conflict, listSome, notFound, unprocessable, type ErrorField } from '../errors.js';
import { gradeRubric } from '../scoring/index.js';
import type { RubricProblem } from '../scoring/types.js';
import { refuseUnlisted } from './principal.js';
import { votesTexts } from './votesText.js';

export interface IngestResult {
  accepted: number;
  duplicates: number;
}

const problemText: Record<RubricProblem['kind'], string> = {
  missing: 'has no votes',
  unknown: "is not in the task's rubric",
  repeated: 'is voted on more than once',
  vote_count: 'has the wrong number of votes',
};

/**
 * Where in a run's `rubricVotes` a problem is: the entry naming an unknown criterion, the second
 * entry of a repeated one, the votes of an entry with the wrong number; a missing criterion has no entry.
 */
function entryAt(entries: readonly { criterionId: string }[], p: RubricProblem): string {
  if (p.kind === 'missing') return '';
  const at = entries.flatMap((e, j) => (e.criterionId === p.criterionId ? [j] : []));
  if (p.kind === 'repeated') return `/${at[1]}/criterionId`;
  return p.kind === 'unknown' ? `/${at[0]}/criterionId` : `/${at[0]}/votes`;
}

/**
 * A run's content, field by field in a fixed order. A resent run id is compared with the stored
 * run this way, so nothing is computed for the (usual) new run. Votes keep the schema's key order
 * both when parsed and when read back from their stored JSON.
 */
function content(r: RunRecord): Record<string, unknown> {
  const t = r.tokens;
  return {
    taskId: r.taskId,
    kind: r.kind,
    minerHotkey: r.minerHotkey,
    attemptNo: r.attemptNo,
    resolved: r.resolved,
    tokens: t ? [t.input, t.cachedInput, t.output] : null,
    timeTakenSeconds: r.timeTakenSeconds,
    agentSteps: r.agentSteps,
    rubricVotes: r.rubricVotes,
    judgeDigest: r.judgeDigest ?? null,
    answerDate: r.answerDate ?? null,
  };
}

/** The fields whose values differ between the stored run and the one sent. */
function differingFields(stored: RunRecord, sent: RunRecord): string[] {
  const a = content(stored);
  const b = content(sent);
  return Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** Who stored a run, as a 409 says it: this same validator, another one by name and id, or the admin. */
async function storedBy(tx: Store, id: string | null, sender: string | null): Promise<string> {
  if (id === null) return sender === null ? 'the admin (this same sender)' : 'the admin';
  const name = (await tx.validators.get(id))?.name;
  const who = `validator ${name === undefined ? id : `"${name}" (${id})`}`;
  return id === sender ? `${who}, this same validator,` : `another ${who}`;
}

const votesOf = (row: JudgeRow) => (JSON.parse(row.document) as JudgeInput).votes;

/**
 * The digests the batch names that the competition held (current or earlier configurations), each
 * with its `votes`: the vote count of every grade made under it (SPEC 12).
 */
async function heldDigests(tx: Store, competitionId: string, inForce: JudgeRow | null, runs: RunInput[]) {
  const held = new Map<string, number>(inForce ? [[inForce.digest, votesOf(inForce)]] : []);
  const named = new Set<string>();
  for (const r of runs) if (r.judge) named.add(r.judge.digest);
  for (const digest of named) {
    if (held.has(digest)) continue;
    const row = await tx.judges.get(competitionId, digest);
    if (row) held.set(digest, votesOf(row));
  }
  return held;
}

/**
 * What is wrong with a run's judge fields (SPEC 12), if anything: a QnA run names the judge
 * configuration it was graded under, one the competition held, and its answer date, exactly when
 * the competition holds one; other runs name none.
 */
function judgeProblem(
  r: RunInput,
  qna: boolean,
  judge: string | null,
  held: ReadonlyMap<string, number>,
): { field: string; message: string } | null {
  const inForce = judge === null ? 'the competition holds no judge configuration' : `the one in force is ${judge}`;
  if (!qna || judge === null) {
    if (r.judge) return { field: 'judge', message: `judge sent, but ${qna ? inForce : 'the task is not QnA'}` };
    if (r.answerDate !== undefined)
      return { field: 'answerDate', message: `answerDate sent, but ${qna ? inForce : 'the task is not QnA'}` };
    return null;
  }
  if (!r.judge) return { field: 'judge', message: `judge: {digest} is required (${inForce})` };
  if (!held.has(r.judge.digest))
    return {
      field: 'judge/digest',
      message: `judge configuration ${r.judge.digest} was never held by this competition; ${inForce}`,
    };
  if (r.answerDate === undefined) return { field: 'answerDate', message: 'answerDate is required with judge' };
  return null;
}

/**
 * `known`: the competition's settings when the caller read them already in this transaction (null:
 * none). `text`: the JSON text `runs` were parsed from, when they are that parse as sent (their
 * votes are then stored as sent: ./votesText.ts).
 */
export async function ingestRuns(
  tx: Store,
  competitionId: string,
  runs: RunInput[],
  validatorId: string | null,
  known?: CompetitionSettings | null,
  text?: string,
): Promise<IngestResult> {
  const competition = known === undefined ? await tx.competitions.get(competitionId) : known;
  if (!competition) throw notFound(`competition ${competitionId} does not exist`);
  refuseUnlisted(competition, validatorId);

  const rubrics = await tx.tasks.rubrics(competitionId, [...new Set(runs.map((r) => r.taskId))]);
  const unknown = [...rubrics].filter(([, t]) => t === null).map(([id]) => id);
  if (unknown.length > 0) {
    const missing = new Set(unknown);
    const named = runs.flatMap((r, i) => (missing.has(r.taskId) ? [{ r, path: `body/runs/${i}/taskId` }] : []));
    const errors = named.map(({ r, path }) => ({
      path,
      message: `run ${r.runId}: task ${r.taskId} does not exist in competition ${competitionId}`,
    }));
    // The run is named by its id, whole: an id may hold colons (`v7:…`), so never cut it out of a message.
    const first = named
      .slice(0, 3)
      .map(({ r, path }) => `${path} (run ${r.runId})`)
      .join(', ');
    throw notFound(
      `unknown task ${listSome(unknown)} in competition ${competitionId}; create it first (PUT .../tasks). ` +
        `${errors.length} run(s) name it, first ${first}`,
      errors,
    );
  }

  const inForce = await tx.judges.latest(competitionId);
  const judge = inForce?.digest ?? null;
  const invalid: ErrorField[] = [];
  /** The run (batch index) each entry of `invalid` is about. */
  const invalidAt: number[] = [];
  const refuse = (i: number, e: ErrorField) => {
    invalid.push(e);
    invalidAt.push(i);
  };
  const held = await heldDigests(tx, competitionId, inForce, runs);
  const votesJson = text === undefined ? null : votesTexts(text, runs);
  const records: RunRecord[] = runs.map((r, i) => {
    const task = rubrics.get(r.taskId)!;
    const judged = judgeProblem(r, task.type === 'swe_atlas_qna', judge, held);
    if (judged) refuse(i, { path: `body/runs/${i}/${judged.field}`, message: `run ${r.runId}: ${judged.message}` });
    let resolved = r.resolved ?? false;
    let criteria: RunRecord['criteria'] = null;
    if (r.rubricVotes) {
      const where = `run ${r.runId} on task ${r.taskId}`;
      if (task.type !== 'swe_atlas_qna' || task.criteria.length === 0) {
        refuse(i, {
          path: `body/runs/${i}/rubricVotes`,
          message: `${where}: votes sent for a task without a rubric`,
        });
      } else {
        // As many votes as the configuration it names casts; without one, the competition's judgeVotes.
        const votes = (r.judge && held.get(r.judge.digest)) ?? competition.judgeVotes;
        const grade = gradeRubric(task.criteria, r.rubricVotes, votes);
        if (!grade.ok) {
          const p = grade.problem;
          const extra = p.kind === 'vote_count' ? ` (${p.actual}, expected ${p.expected})` : '';
          refuse(i, {
            path: `body/runs/${i}/rubricVotes${entryAt(r.rubricVotes, p)}`,
            message: `${where}: criterion ${p.criterionId} ${problemText[p.kind]}${extra}`,
          });
        } else if (r.resolved !== undefined && r.resolved !== grade.resolved) {
          refuse(i, {
            path: `body/runs/${i}/resolved`,
            message: `${where}: resolved ${r.resolved} contradicts the votes, which give ${grade.resolved}`,
          });
        } else {
          resolved = grade.resolved;
          criteria = grade.criteria;
        }
      }
    }
    return {
      competitionId,
      runId: r.runId,
      taskId: r.taskId,
      kind: r.kind,
      minerHotkey: r.minerHotkey ?? null,
      validatorId,
      attemptNo: r.attemptNo ?? null,
      resolved,
      tokens: r.tokens
        ? { input: r.tokens.input, cachedInput: r.tokens.cachedInput ?? null, output: r.tokens.output }
        : null,
      timeTakenSeconds: r.timeTakenSeconds ?? null,
      agentSteps: r.agentSteps ?? null,
      rubricVotes: r.rubricVotes ?? null,
      votesJson: votesJson?.[i] ?? null,
      criteria,
      judgeDigest: r.judge?.digest ?? null,
      answerDate: r.answerDate ?? null,
    };
  });
  // A run identical to its stored copy is a duplicate (API.md), whatever changed in the settings
  // since it was stored (a judge set, other votes): the refused runs' stored copies are read, and
  // those sent again unchanged are taken as stored. Only a batch with refused runs reads them.
  let refused = invalid;
  if (invalid.length > 0) {
    const stored = await tx.runs.existing(
      competitionId,
      invalidAt.map((i) => runs[i]!.runId),
    );
    const same = new Set<number>();
    for (const i of new Set(invalidAt)) {
      const old = stored.get(runs[i]!.runId);
      // `resolved` left out with votes is what the votes gave, as stored (the rubric cannot change once runs exist).
      if (!old || differingFields(old, { ...records[i]!, resolved: runs[i]!.resolved ?? old.resolved }).length > 0)
        continue;
      same.add(i);
      records[i] = old;
    }
    refused = invalid.filter((_, k) => !same.has(invalidAt[k]!));
  }
  if (refused.length > 0)
    throw unprocessable(
      refused
        .slice(0, 20)
        .map((e) => e.message)
        .join('; '),
      refused,
    );

  // A batch whose stored runs include one sent with other content is refused whole; the check runs
  // before the new runs take any number of the run sequence (contract.ts, insertNew). An all-new
  // batch (the usual one) has nothing to compare.
  const refuseConflicts = async (stored: ReadonlyMap<string, RunRecord>): Promise<void> => {
    const conflicts: ErrorField[] = [];
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const old = stored.get(r.runId);
      if (old === undefined) continue;
      const fields = differingFields(old, r);
      if (fields.length === 0) continue;
      conflicts.push({
        path: `body/runs/${i}/runId`,
        message: `run ${r.runId} was stored by ${await storedBy(tx, old.validatorId, validatorId)} with different ${fields.join(', ')}`,
      });
    }
    if (conflicts.length === 0) return;
    throw conflict(
      `${conflicts.length} run(s) already stored with different content, nothing stored: ` +
        `${conflicts
          .slice(0, 3)
          .map((e) => `${e.path}: ${e.message}`)
          .join('; ')}${conflicts.length > 3 ? '; …' : ''}. ` +
        'Send a new runId for a new result, or delete the stored run first.',
      conflicts,
    );
  };
  // The stale rule (SPEC 12) reads which of the batch's tasks are QnA tasks while a judge is in force.
  const qnaTasks = new Set([...rubrics].filter(([, t]) => t?.type === 'swe_atlas_qna').map(([id]) => id));
  const stored = await tx.runs.insertNew(
    records,
    competition.tokenWeights,
    new Set(competition.excludedValidators),
    judge === null ? null : { digest: judge, qnaTasks },
    refuseConflicts,
  );
  return { accepted: records.length - stored.size, duplicates: stored.size };
}
