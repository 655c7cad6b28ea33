import { z } from 'zod';
import { named } from './named.js';
import { JudgeDigest } from './judge.js';
import { Id, ItemId, LIMITS, MinerHotkey, queryInteger, TokenCount } from './common.js';
import { withFastCheck } from './fastCheck.js';
import { ISO_DATE, dateExists, isWellFormedRunBatch } from './runBatchCheck.js';

const VoteText = z.string().max(LIMITS.voteTextLength);

export const VoteSchema = named(
  'Vote',
  'One judge vote.',
  z.strictObject({
    verdict: z.enum(['YES', 'NO']).describe("The judge's verdict on the criterion."),
    reason: VoteText.optional().describe("The judge's reasoning, up to 8,000 characters; kept with the run."),
    evidence: VoteText.optional().describe('Quotes from the answer, up to 8,000 characters; kept with the run.'),
  }),
);

export const CriterionVotesSchema = named(
  'CriterionVotes',
  "The judge's votes on one criterion.",
  z.strictObject({
    criterionId: z.string().min(1).max(LIMITS.idLength).describe('The rubric criterion voted on.'),
    votes: z
      .array(VoteSchema)
      .min(1, { error: "no votes: a criterion has exactly the judge configuration's votes (judgeVotes)" })
      .max(LIMITS.maxJudgeVotes, {
        error: `more than ${LIMITS.maxJudgeVotes} votes: a criterion has exactly the judge configuration's votes (judgeVotes, at most ${LIMITS.maxJudgeVotes})`,
      })
      .describe('Exactly `judgeVotes` votes.'),
  }),
);

export const TokensSchema = named(
  'Tokens',
  'Token counts of a run.',
  z.strictObject({
    input: TokenCount.describe('Non-cached input tokens.'),
    cachedInput: TokenCount.optional().describe('Cached input tokens; missing counts as 0.'),
    output: TokenCount.describe('Output tokens.'),
  }),
);

/** An ISO 8601 calendar date that exists. */
const IsoDate = z.string().regex(ISO_DATE, 'an ISO 8601 date, YYYY-MM-DD').refine(dateExists, 'a date that exists');

/** Fields every run carries, whatever its kind. */
const runFields = {
  runId: ItemId.describe('Client-chosen id, unique within the competition; makes retries safe.'),
  taskId: Id.describe('The task run.'),
  attemptNo: z.number().int().min(0).max(1_000_000).optional().describe('Attempt number, from 0.'),
  resolved: z.boolean().optional().describe('Graded result; required unless `rubricVotes` are sent.'),
  tokens: TokensSchema.nullable().optional().describe('Token counts; null or absent when unknown (then T is invalid).'),
  timeTakenSeconds: z.number().min(0).max(1e9).optional().describe('Wall time of the run in seconds.'),
  agentSteps: z.number().int().min(0).max(1e9).optional().describe('Agent steps taken.'),
  rubricVotes: z
    .array(CriterionVotesSchema)
    .min(1)
    .max(LIMITS.criteriaPerTask)
    .optional()
    .describe('Judge votes for a QnA run, one entry per rubric criterion (SPEC 7).'),
  judge: z
    .strictObject({ digest: JudgeDigest })
    .optional()
    .describe(
      'The judge configuration the QnA run was graded under (SPEC 12): required when the competition holds one.',
    ),
  answerDate: IsoDate.optional().describe(
    'The answer date put into the judge’s prompt (ISO 8601 date): required with `judge`.',
  ),
};

/**
 * `resolved` or `rubricVotes` (or both): checked here, and stated in the OpenAPI document as an
 * `allOf: [{anyOf}]` of the two `required` lists. Generators then type a run as its fields and
 * (resolved | votes) present; a bare `anyOf` beside `properties` would make them a union instead.
 */
const RESOLVED_OR_VOTES = [
  {
    anyOf: [
      {
        type: 'object',
        required: ['resolved'],
        properties: { resolved: { type: 'boolean', description: 'Sent.' } },
        description: 'A graded result.',
      },
      {
        type: 'object',
        required: ['rubricVotes'],
        properties: { rubricVotes: { type: 'array', minItems: 1, description: 'Sent.' } },
        description: 'Judge votes the server grades (QnA tasks).',
      },
    ],
  },
];
function resolvedOrVotes(r: { resolved?: boolean; rubricVotes?: unknown }, ctx: z.core.$RefinementCtx) {
  if (r.resolved === undefined && r.rubricVotes === undefined)
    ctx.addIssue({ code: 'custom', path: ['resolved'], message: 'required unless rubricVotes are sent' });
}

export const BaselineRunSchema = named(
  'BaselineRun',
  'A baseline run result: no `minerHotkey`; `resolved` unless `rubricVotes` are sent.',
  z
    .strictObject({
      ...runFields,
      kind: z.literal('baseline').describe('A run of the baseline (reference) agent.'),
      minerHotkey: z
        .never({ error: 'must be absent for a baseline run' })
        .optional()
        .describe('Never sent on a baseline run.'),
    })
    .superRefine(resolvedOrVotes),
  { allOf: RESOLVED_OR_VOTES },
);

export const MinerRunSchema = named(
  'MinerRun',
  'A miner run result: `minerHotkey` required; `resolved` unless `rubricVotes` are sent.',
  z
    .strictObject({
      ...runFields,
      kind: z.literal('miner').describe("A run of a miner's agent."),
      minerHotkey: MinerHotkey.describe("The miner's hotkey: required on a miner run; not `baseline`."),
    })
    .superRefine(resolvedOrVotes),
  { allOf: RESOLVED_OR_VOTES },
);

export const RunInputSchema = named(
  'RunResult',
  'One run result, by `kind`: a baseline run or a miner run.',
  z.discriminatedUnion('kind', [BaselineRunSchema, MinerRunSchema], {
    error: (issue) => (issue.code === 'invalid_union' ? 'kind must be baseline or miner' : undefined),
  }),
);
export type RunInput = z.infer<typeof RunInputSchema>;

/** A batch of runs; a well-formed one is taken as sent (./runBatchCheck.ts), without zod's copy. */
export const RunBatchSchema = withFastCheck(
  named(
    'RunBatch',
    'A batch of run results.',
    z
      .strictObject({
        runs: z.array(RunInputSchema).min(1).max(LIMITS.runsPerBatch).describe('Up to 5,000 runs, stored atomically.'),
      })
      .superRefine((b, ctx) => {
        const seen = new Set<string>();
        b.runs.forEach((r, i) => {
          if (seen.has(r.runId))
            ctx.addIssue({
              code: 'custom',
              path: ['runs', i, 'runId'],
              message: `runId ${r.runId} repeated in the batch`,
            });
          seen.add(r.runId);
        });
      }),
  ),
  isWellFormedRunBatch,
);

export const RunBatchResultSchema = named(
  'RunBatchResult',
  'What a batch stored.',
  z.object({
    accepted: z.number().int().describe('Runs stored by this request.'),
    duplicates: z.number().int().describe('Runs identical to ones already stored; nothing changed for them.'),
  }),
);

const Position = z.number().int().describe("The criterion's position in the task's rubric, from 0.");
const HiddenId = z
  .string()
  .optional()
  .describe('Criterion id: part of the answer key, so only for the admin or when the competition reveals answers.');

export const CriterionGradeSchema = named(
  'CriterionGrade',
  "A criterion graded from votes, in the rubric's order.",
  z.object({
    position: Position,
    criterionId: HiddenId,
    yes: z.number().int().describe('YES votes.'),
    no: z.number().int().describe('NO votes.'),
    verdict: z.enum(['YES', 'NO']).describe('Majority verdict.'),
    met: z.boolean().describe('Verdict YES on a positive criterion, NO on a negative one.'),
    split: z.boolean().describe('True when the votes were not unanimous.'),
  }),
);

export const StoredCriterionVotesSchema = named(
  'StoredCriterionVotes',
  "The judge's votes on one criterion, as stored.",
  z.object({
    position: Position,
    criterionId: HiddenId,
    votes: z
      .array(
        z.object({
          verdict: z.enum(['YES', 'NO']).describe("The judge's verdict."),
          reason: z.string().optional().describe("The judge's reasoning: answer key, shown as criterionId is."),
          evidence: z.string().optional().describe('Quotes from the answer: shown as criterionId is.'),
        }),
      )
      .describe('The votes, in the order sent.'),
  }),
);

export const RunSchema = named(
  'Run',
  'A stored run.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    runId: z.string().describe('Run identifier.'),
    seq: z.number().int().describe('Storage sequence: the order in which the server stored runs.'),
    taskId: z.string().describe('Task identifier.'),
    kind: z.enum(['baseline', 'miner']).describe('Run kind.'),
    minerHotkey: z.string().nullable().describe('Miner hotkey, null for baseline runs.'),
    validatorId: z.string().nullable().describe('Validator that sent it; null when the admin did.'),
    attemptNo: z.number().int().nullable().describe('Attempt number.'),
    resolved: z.boolean().describe('Graded result (derived from the votes for QnA runs that sent them).'),
    tokens: z
      .object({
        input: z.number().int().describe('Non-cached input tokens.'),
        cachedInput: z.number().int().nullable().describe('Cached input tokens; null when not sent.'),
        output: z.number().int().describe('Output tokens.'),
      })
      .nullable()
      .describe('Token counts as sent.'),
    weightedTokens: z
      .number()
      .nullable()
      .describe("Weighted count under the competition's weights; null when invalid or zero."),
    timeTakenSeconds: z.number().nullable().describe('Wall time in seconds.'),
    agentSteps: z.number().int().nullable().describe('Agent steps.'),
    criteria: z
      .array(CriterionGradeSchema)
      .nullable()
      .describe('Per-criterion grading, for runs sent with votes, in rubric order.'),
    rubricVotes: z
      .array(StoredCriterionVotesSchema)
      .nullable()
      .describe(
        'The votes as sent. Criterion ids, reasons and evidence are the answer key: for the admin, or when the ' +
          'competition reveals answers; otherwise only the verdicts, by rubric position.',
      ),
    judge: z
      .object({ digest: z.string().describe('Digest of the judge configuration.') })
      .nullable()
      .describe('The judge configuration the run was graded under; null when none was named.'),
    answerDate: z.string().nullable().describe('The answer date put into the judge’s prompt.'),
    stale: z
      .boolean()
      .describe(
        'Graded under a judge configuration other than the one in force: stored and listed, scored nowhere (SPEC 12).',
      ),
    createdAt: z.string().describe('When it was stored, ISO 8601 UTC.'),
  }),
);

export const RunParams = z.object({
  competitionId: Id.describe('Competition identifier.'),
  runId: Id.describe('Run identifier.'),
});

export const RunListQuery = z.strictObject({
  validator: Id.optional().describe('Only runs sent by this validator id.'),
  miner: Id.optional().describe("Only this miner's runs."),
  task: Id.optional().describe('Only runs on this task.'),
  kind: z.enum(['baseline', 'miner']).optional().describe('Only baseline or only miner runs.'),
  limit: queryInteger(1, 1000, 100).describe('Runs per page, 1 to 1,000; default 100.'),
  cursor: z.string().max(32).optional().describe('`nextCursor` of the previous page.'),
});

export const RunPageSchema = named(
  'RunPage',
  'A page of stored runs.',
  z.object({
    runs: z.array(RunSchema).describe('Runs in storage order, oldest first.'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` for the next page; null at the end. Stays valid while runs are added.'),
  }),
);
