// GET …/coverage (API.md 1.2, SPEC 13): what still has to be run.
import { z } from 'zod';
import { named } from './named.js';
import { Id, LIMITS, queryInteger, StagesParam } from './common.js';

/** Pairs per coverage page at most, and by default. */
export const COVERAGE_PAGE = { max: 10_000, default: 1000 } as const;

/**
 * A count with thousands separators, as `toLocaleString('en')` writes it but without Intl: the
 * first call of a locale's number format maps some 5.5 MB of ICU data into the process for good,
 * and this text is made as the server loads.
 */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const ID = '[A-Za-z0-9._:-]{1,128}';
const CURSOR = new RegExp(`^(${ID})/(${ID})$`);

export const CoverageQuery = z.strictObject({
  stages: StagesParam,
  miner: Id.optional().describe('Only this miner (a hotkey), or `baseline` for the baseline pairs.'),
  task: Id.optional().describe('Only this task.'),
  missing: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('`true`: only the pairs still missing runs. The summary still covers every chosen pair.'),
  limit: queryInteger(1, COVERAGE_PAGE.max, COVERAGE_PAGE.default).describe(
    `Pairs per page, 1 to ${thousands(COVERAGE_PAGE.max)}; default ${COVERAGE_PAGE.default}.`,
  ),
  cursor: z
    .string()
    .max(2 * LIMITS.idLength + 1)
    .regex(CURSOR, 'must be the nextCursor of the previous page (taskId/miner)')
    .transform((c) => {
      const [, taskId, miner] = CURSOR.exec(c)!;
      return { taskId: taskId!, miner: miner! };
    })
    .optional()
    .describe('`nextCursor` of the previous page.'),
});

const count = (what: string) => z.number().int().describe(what);

export const CoveragePairSchema = named(
  'CoveragePair',
  'One (task, miner) pair, or a task with its baseline.',
  z.object({
    taskId: z.string().describe('Task id.'),
    miner: z.string().describe('Miner hotkey, or `baseline`.'),
    planned: count("Runs planned: the task's plannedRuns, else the competition's (default 5)."),
    have: count('Runs that are scored: not deleted, not from an excluded validator.'),
    missing: count('max(0, planned - have).'),
  }),
);

export const CoverageSchema = named(
  'Coverage',
  'What still has to be run over a stage set (SPEC 13).',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(z.string()).describe('Stages whose tasks make the pairs.'),
    summary: z
      .object({
        pairs: count('Pairs chosen by `miner` and `task` (all pairs without them).'),
        planned: count('Runs planned over those pairs.'),
        have: count('Scored runs over those pairs.'),
        missing: count('Runs still missing over those pairs.'),
        complete: z.boolean().describe('No chosen pair is missing a run.'),
      })
      .describe('Over every pair `miner` and `task` choose, whatever the page and `missing`.'),
    pairs: z.array(CoveragePairSchema).describe('A page of the pairs, by task id, the baseline first, then hotkey.'),
    nextCursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
  }),
);
