import { z } from 'zod';
import { named } from './named.js';
import { DisplayName, Id, LIMITS, StageSchema } from './common.js';
import { SemverSchema } from './heartbeat.js';

/** SPEC 2 asks finite and at least 0. A bound keeps every weighted token sum (sums reach 2^53) far from overflowing to Infinity; 10^6 is generous. */
const Weight = z.number().min(0).max(1e6);

export const TokenWeightsSchema = named(
  'TokenWeights',
  'Token weights of SPEC section 2; each from 0 to 1,000,000.',
  z.strictObject({
    input: Weight.describe('Weight of non-cached input tokens (wi).'),
    cachedInput: Weight.describe('Weight of cached input tokens (wc).'),
    output: Weight.describe('Weight of output tokens (wo).'),
  }),
);

/** Judge votes per QnA criterion (SPEC: a majority, so odd), in the API and in input documents alike. */
export const JudgeVotes = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.maxJudgeVotes)
  .refine((n) => n % 2 === 1, 'must be odd');

export const CompetitionInputSchema = named(
  'CompetitionSettings',
  'Settings of a competition.',
  z.strictObject({
    name: DisplayName.describe('Display name: no control characters or bidirectional controls.'),
    tokenWeights: TokenWeightsSchema.optional().describe('Default 1 / 0.1 / 3.'),
    burnRatio: z.number().min(0).max(1).optional().describe('Share of emission burned, 0 to 1. Default 0.'),
    judgeVotes: JudgeVotes.optional().describe(
      'Judge votes per QnA criterion: odd, 1 to 15. Default 5. While a judge configuration is in force, its `votes` (another value is a 409: PUT …/judge changes both).',
    ),
    finalStages: z
      .array(StageSchema)
      .min(1)
      .max(3)
      .refine((s) => new Set(s).size === s.length, 'must not repeat a stage')
      .optional()
      .describe('Stages that make the final score. Default `screener_2`, `evaluation`.'),
    revealAnswers: z
      .boolean()
      .optional()
      .describe(
        'Make QnA reference answers and rubrics public in task reads. Default false: only the admin sees them.',
      ),
    validators: z
      .array(Id)
      .max(LIMITS.allowListLength)
      .nullable()
      .optional()
      .describe(
        'The validators that may write to the competition (runs, deletes), by id; others get a 403. ' +
          '`null`: every validator (the default).',
      ),
    plannedRuns: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        "Runs planned per (task, miner) pair and per task's baseline where the task names no plannedRuns: coverage only (SPEC 13). Default 5.",
      ),
    minValidatorVersion: SemverSchema.nullable()
      .optional()
      .describe(
        'Oldest validator version (semver) whose run writes are taken: an older validator, or one that sent no heartbeat, gets a 426. null: any. Default null.',
      ),
  }),
);

export const CompetitionSchema = named(
  'Competition',
  'A competition with its settings and counts.',
  z.object({
    id: z.string().describe('Competition identifier.'),
    name: z.string().describe('Display name.'),
    tokenWeights: TokenWeightsSchema,
    burnRatio: z.number().describe('Share of emission burned.'),
    judgeVotes: z.number().int().describe('Judge votes per QnA criterion.'),
    finalStages: z.array(StageSchema).describe('Stages that make the final score.'),
    revealAnswers: z.boolean().describe('Whether public task reads show QnA answer keys.'),
    excludedValidators: z.array(z.string()).describe('Validators whose runs are set aside in this competition.'),
    validators: z
      .array(z.string())
      .nullable()
      .optional()
      .describe('The allow-list: validators that may write, by id, sorted; null: every validator. Admin reads only.'),
    createdAt: z.string().describe('Creation time, ISO 8601 UTC.'),
    updatedAt: z.string().describe('Last settings change, ISO 8601 UTC.'),
    plannedRuns: z.number().int().describe('Runs planned per pair where the task names none (coverage, SPEC 13).'),
    minValidatorVersion: z
      .string()
      .nullable()
      .describe('Oldest validator version whose run writes are taken; null: any.'),
    counts: z
      .object({
        tasks: z.number().int().describe('Tasks in the competition.'),
        miners: z.number().int().describe('Miners known to the competition.'),
        runs: z.number().int().describe('Runs stored.'),
      })
      .describe('What the competition holds.'),
    baseline: z
      .object({
        runs: z.number().int().describe('Baseline runs in the final stages.'),
        resolved: z.number().int().describe('Resolved baseline runs in the final stages.'),
        resolveRate: z.number().nullable().describe('Baseline Task Resolve Rate (SPEC 7); null without runs.'),
      })
      .describe('The baseline agent over the final stages.'),
  }),
);

export const CompetitionListSchema = named(
  'CompetitionList',
  'The competitions.',
  z.object({ competitions: z.array(CompetitionSchema).describe('All competitions, by id.') }),
);
