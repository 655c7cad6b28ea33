// The lines of a snapshot's input document (docs/CANONICAL_JSON.md, API.md "Snapshots"): the
// competition's settings, its tasks and its scored runs, everything offline scoring needs and
// nothing else. Limits are the HTTP API's own, so whatever the server stored fits.
import { z } from 'zod';
import { ComplexitySchema, Id, StageSchema, TokenCount } from '../schemas/common.js';
import { JudgeVotes, TokenWeightsSchema } from '../schemas/competitions.js';
import { MetagraphSchema } from './metagraph.js';

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const InputCompetitionSchema = z
  .strictObject({
    id: Id.describe('The competition.'),
    tokenWeights: TokenWeightsSchema,
    burnRatio: z.number().min(0).max(1).describe('Share of emission burned.'),
    judgeVotes: JudgeVotes.describe('Judge votes per QnA criterion, odd (informative: runs carry `resolved`).'),
    finalStages: z.array(StageSchema).min(1).describe('The stage set scored when none is asked for.'),
    miners: z.array(Id).describe('Every miner known to the competition, ascending, with scored runs or not.'),
    excluded: z
      .strictObject({
        miners: z.array(Id).describe('Excluded miners, ascending; each also in `miners`.'),
        validators: z.array(Id).describe('Excluded validators, ascending; their runs are not in the document.'),
      })
      .describe('Exclusions in force.'),
    counts: z
      .strictObject({ tasks: Count, runs: Count })
      .describe('Numbers of task and run lines that follow, so a document cut at a line boundary is caught.'),
    metagraph: MetagraphSchema.optional().describe(
      'The metagraph in force when the snapshot was taken (SPEC 11), absent when none was recorded: with it, scoring gives the weights on chain too.',
    ),
    judge: z
      .looseObject({ digest: z.string().regex(/^[0-9a-f]{64}$/) })
      .optional()
      .describe(
        'The judge configuration in force (SPEC 12) with its digest, absent when none is set: the QnA runs in the document were graded under it; stale runs are not in the document.',
      ),
  })
  .describe('Line 1: the competition settings.');

export const InputTaskSchema = z
  .strictObject({
    id: Id.describe('Task id; task lines come in ascending id order.'),
    type: z.enum(['swebench_verified', 'swe_atlas_qna']).describe('Task type.'),
    stage: StageSchema,
    complexity: ComplexitySchema.nullable(),
    plannedRuns: z.number().int().min(0).max(1_000_000).nullable().describe('Planned repeat count, or null.'),
  })
  .describe('One task.');

export const InputTokensSchema = z
  .strictObject({ input: TokenCount, cachedInput: TokenCount.nullable(), output: TokenCount })
  .describe('Raw token counts; a missing cached count is null.');

export const InputRunSchema = z
  .strictObject({
    runId: Id.describe('Run id; run lines come in ascending runId order, each id once.'),
    taskId: Id.describe('A task listed above.'),
    kind: z.enum(['baseline', 'miner']),
    minerHotkey: Id.nullable().describe('The miner, for a miner run; null for a baseline run.'),
    resolved: z.boolean(),
    tokens: InputTokensSchema.nullable(),
    validatorId: Id.nullable().describe('Who sent the run; null for the admin.'),
  })
  .describe('One scored run.');

export type InputCompetition = z.infer<typeof InputCompetitionSchema>;
export type InputTask = z.infer<typeof InputTaskSchema>;
export type InputRun = z.infer<typeof InputRunSchema>;

/** A whole input document, as `parse` returns it and `serialize` writes it. */
export interface InputDocument {
  competition: Omit<InputCompetition, 'counts'>;
  tasks: InputTask[];
  runs: InputRun[];
}
