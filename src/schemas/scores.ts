import { z } from 'zod';
import { named } from './named.js';
import { ComplexitySchema, Id, LIMITS, queryInteger, StageSchema, StagesParam } from './common.js';

const Score = (what: string) => z.number().nullable().describe(`${what}; null when the miner has nothing scored.`);

export const TaskCountsSchema = named(
  'TaskCounts',
  'Tasks per pool.',
  z.object({
    main: z.number().int().describe('Tasks in pool `main` (x >= 2).'),
    hardBoost: z.number().int().describe('Tasks in pool `hard_boost` (x <= 1, y >= 1).'),
    excluded: z.number().int().describe('Tasks run but not scored.'),
  }),
);

export const GroupScoresSchema = named(
  'GroupScores',
  'Group scores; a group is absent when the miner has no scored task in it.',
  z.object({
    short: z.number().optional().describe('S_N over short tasks.'),
    medium: z.number().optional().describe('S_N over medium tasks.'),
    long: z.number().optional().describe('S_N over long tasks.'),
  }),
);

export const LeaderboardEntrySchema = named(
  'LeaderboardEntry',
  'One miner on the leaderboard.',
  z.object({
    rank: z.number().int().nullable().describe('1-based rank, shared on equal scores; null when unscored or excluded.'),
    hotkey: z.string().describe('Miner hotkey.'),
    excluded: z.boolean().describe('Excluded by the admin: takes part in nothing.'),
    normalizedScore: Score('S_N in [-1, 1]'),
    rawTotal: Score('S_R = S_M + B_H'),
    mainScore: Score('S_M'),
    hardBoost: Score('B_H'),
    taskCounts: TaskCountsSchema,
    groupScores: GroupScoresSchema,
    runs: z.number().int().describe("The miner's runs in the chosen stages."),
    resolvedRuns: z.number().int().describe('Of those, resolved.'),
    resolveRate: z.number().nullable().describe('Task Resolve Rate: resolved runs / runs (SPEC 7); null without runs.'),
    incentive: z
      .object({
        rawWeight: z.number().describe('W(m): sum of the element shares won.'),
        finalWeight: z.number().describe('INC(m) = W(m) / sum W * (1 - burnRatio).'),
      })
      .describe('Incentive weight.'),
  }),
);

export const BaselineRateSchema = named(
  'BaselineRate',
  'The baseline agent over the chosen stages.',
  z.object({
    runs: z.number().int().describe('Baseline runs in the chosen stages.'),
    resolved: z.number().int().describe('Of those, resolved.'),
    resolveRate: z.number().nullable().describe('Baseline Task Resolve Rate; null without runs.'),
  }),
);

export const LeaderboardSchema = named(
  'Leaderboard',
  'The leaderboard.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(StageSchema).describe('Stages scored.'),
    baseline: BaselineRateSchema,
    miners: z.array(LeaderboardEntrySchema).describe('S_N descending, then hotkey; unranked miners last.'),
  }),
);

const { miners: _miners, ...leaderboardHead } = LeaderboardSchema.shape;
export const LeaderboardPageSchema = named(
  'LeaderboardPage',
  'The leaderboard, a page of it, or the chosen miners, with the number of entries before paging.',
  z.object({
    ...leaderboardHead,
    total: z
      .number()
      .int()
      .min(0)
      .describe('Entries before paging: every miner, or the chosen ones found when `hotkeys` is given.'),
    miners: z
      .array(LeaderboardEntrySchema)
      .describe(
        'S_N descending, then hotkey; unranked miners last. A page or the chosen miners keep their ranks in the full list.',
      ),
  }),
);

/** `?hotkeys=a,b`: the miners to return, deduplicated; each an identifier, at most `LIMITS.hotkeysPerRead`. */
const HotkeysParam = z
  .string()
  .max(LIMITS.hotkeysPerRead * (LIMITS.idLength + 1))
  .optional()
  .transform((raw, ctx): string[] | undefined => {
    if (raw === undefined) return undefined;
    if (raw.trim() === '') {
      ctx.addIssue({ code: 'custom', message: 'name at least one hotkey, or leave `hotkeys` out for every miner' });
      return z.NEVER;
    }
    const hotkeys = [...new Set(raw.split(',').map((h) => h.trim()))];
    const bad = hotkeys.filter((h) => !Id.safeParse(h).success);
    if (bad.length > 0) {
      const named = bad.map((h) => (h === '' ? 'an empty name' : JSON.stringify(h))).join(', ');
      ctx.addIssue({
        code: 'custom',
        message: `not a hotkey: ${named}; list 1 to ${LIMITS.hotkeysPerRead} identifiers`,
      });
    } else if (hotkeys.length > LIMITS.hotkeysPerRead) {
      ctx.addIssue({ code: 'custom', message: `${hotkeys.length} hotkeys; at most ${LIMITS.hotkeysPerRead}` });
    } else return hotkeys;
    return z.NEVER;
  })
  .describe(
    `Comma-separated miner hotkeys (1 to ${LIMITS.hotkeysPerRead}): only these miners, in rank order; ` +
      'hotkeys without an entry are left out. `limit` and `offset` then page the chosen miners. The request ' +
      'line and headers together must stay under 16 KiB (a 431 beyond): 200 ss58 hotkeys (48 characters) fit.',
  );

export const LeaderboardQuery = z.strictObject({
  stages: StagesParam,
  limit: queryInteger(1, LIMITS.leaderboardPage).describe(
    'Entries per page, 1 to 1,000; default every entry from `offset` on.',
  ),
  offset: queryInteger(0, Number.MAX_SAFE_INTEGER, 0).describe(
    'Entries to skip before the page, 0 or more; default 0. Past the end the page is empty.',
  ),
  hotkeys: HotkeysParam,
});

const Zone = z.enum(['penalty', 'maintain', 'bonus', 'excluded']).describe('Scoring zone (SPEC 4).');
const Pool = z.enum(['main', 'hard_boost', 'excluded']).describe('Pool (SPEC 4).');

export const MinerTaskScoreSchema = named(
  'MinerTaskScore',
  "One miner's score on one task.",
  z.object({
    taskId: z.string().describe('Task identifier.'),
    stage: StageSchema,
    complexity: ComplexitySchema.nullable().describe('Complexity group, or null.'),
    runs: z.number().int().describe("The miner's runs on the task."),
    x: z.number().int().describe('Resolved baseline runs.'),
    y: z.number().int().describe('Resolved miner runs.'),
    n: z.number().int().describe('Run count n (SPEC 3).'),
    threshold: z.number().int().describe('Penalty threshold t = floor(0.8x).'),
    baselineTokens: z.number().nullable().describe('T_B, mean weighted tokens of resolved baseline runs.'),
    minerTokens: z.number().nullable().describe("T_A, mean weighted tokens of the miner's runs."),
    r: z.number().describe('Compression term, in [-2, 2].'),
    zone: Zone,
    pool: Pool,
    score: z.number().nullable().describe('Task score s in [-4, 3]; null when excluded.'),
    weight: z.number().nullable().describe('x^(1/3) for main tasks, else null.'),
    hardBoostContribution: z.number().nullable().describe('h = max(0, s) for hard tasks, else null.'),
  }),
);

export const MinerDetailSchema = named(
  'MinerDetail',
  "A miner's leaderboard entry and per-task breakdown.",
  LeaderboardEntrySchema.extend({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(StageSchema).describe('Stages scored.'),
    tasks: z.array(MinerTaskScoreSchema).describe('Per-task breakdown, by task id.'),
  }),
);

export const TaskMinerScoreSchema = named(
  'TaskMinerScore',
  'One miner on a task.',
  z.object({
    hotkey: z.string().describe('Miner hotkey.'),
    runs: z.number().int().describe("The miner's runs on the task."),
    y: z.number().int().describe('Resolved miner runs.'),
    minerTokens: z.number().nullable().describe('T_A.'),
    r: z.number().describe('Compression term.'),
    zone: Zone,
    pool: Pool,
    score: z.number().nullable().describe('Task score, null when excluded.'),
  }),
);

export const CriterionStatsSchema = named(
  'CriterionStats',
  'How a rubric criterion fares across graded runs.',
  z.object({
    position: z.number().int().describe('0-based position in the rubric.'),
    id: z
      .string()
      .optional()
      .describe('Criterion id; left out of public reads unless the competition reveals answers.'),
    title: z
      .string()
      .optional()
      .describe('Criterion text; left out of public reads unless the competition reveals answers.'),
    judgeTitle: z
      .string()
      .optional()
      .describe(
        'The title as the judge sees it, without its leading numbering (`1.7: `, SPEC 12); shown with `title`.',
      ),
    type: z.enum(['positive', 'negative']).describe('Polarity.'),
    change: z.string().nullable().describe('Kind of rewording, or null.'),
    graded: z.number().int().describe('Runs graded on this criterion from votes.'),
    metRate: z.number().nullable().describe('Share of graded runs that met it; null when none.'),
    splitRate: z.number().nullable().describe('Share of graded runs whose votes were not unanimous; null when none.'),
  }),
);

export const TaskDetailSchema = named(
  'TaskDetail',
  'A task with its baseline and miners.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(StageSchema).describe('Stages scored.'),
    id: z.string().describe('Task identifier.'),
    type: z.enum(['swebench_verified', 'swe_atlas_qna']).describe('Task type.'),
    stage: StageSchema,
    complexity: ComplexitySchema.nullable().describe('Complexity group, or null.'),
    plannedRuns: z.number().int().nullable().describe('Planned repeat count.'),
    inStages: z.boolean().describe('Whether the task is in the chosen stages (otherwise `miners` is empty).'),
    answersRevealed: z
      .boolean()
      .describe('Whether this read shows the answer key (reference answer, criterion ids and titles).'),
    qna: z
      .object({
        prompt: z.string().describe('The question presented to the agent.'),
        referenceAnswer: z
          .string()
          .optional()
          .describe(
            'Expert-written reference answer; left out of public reads unless the competition reveals answers.',
          ),
        repositoryUrl: z.string().describe('GitHub repository, owner/name.'),
        repositoryBaseCommit: z.string().describe('Pinned commit SHA.'),
        language: z.string().describe('Repository language.'),
        category: z.string().describe('Task category.'),
        dockerImage: z.string().describe('Docker image with the repository at /app.'),
      })
      .nullable()
      .describe('QnA content, for QnA tasks.'),
    baseline: z
      .object({
        runs: z.number().int().describe('Baseline runs.'),
        resolved: z.number().int().describe('x: resolved baseline runs.'),
        baselineTokens: z.number().nullable().describe('T_B.'),
        resolveRate: z.number().nullable().describe('Baseline resolve rate on this task.'),
      })
      .describe('Baseline summary.'),
    miners: z.array(TaskMinerScoreSchema).describe('Every miner that ran the task, by hotkey.'),
    criteria: z.array(CriterionStatsSchema).optional().describe('QnA tasks: criteria with grading statistics.'),
  }),
);

export const WeightsSchema = named(
  'Weights',
  'Incentive weights.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(StageSchema).describe('Stages scored.'),
    groups: z.array(ComplexitySchema).describe('Groups present (SPEC 6).'),
    layers: z
      .array(
        z.object({
          subsetSize: z.number().int().describe('Groups per element.'),
          layerWeight: z.number().describe('Renormalized layer weight.'),
          elementWeight: z.number().describe('Weight of each element of the layer.'),
          elements: z
            .array(
              z.object({
                subset: z.array(z.string()).describe('Groups of the element, or `overall`.'),
                winners: z.array(z.string()).describe('Winning hotkeys; tied winners split the element.'),
                winningScore: z.number().nullable().describe('Best contest score; null when nobody competed.'),
              }),
            )
            .describe('Elements of the layer.'),
        }),
      )
      .describe('Layers, largest subsets first.'),
    rawWeights: z.record(z.string(), z.number()).describe('W(m) by hotkey.'),
    finalWeights: z.record(z.string(), z.number()).describe('INC(m) by hotkey.'),
    burnRatio: z.number().describe('Configured burn ratio.'),
    burnWeight: z.number().describe('1 - sum of final weights.'),
  }),
);
