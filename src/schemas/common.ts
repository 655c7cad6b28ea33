// Shared request and response schemas. Schemas made with `named` (./named.ts) become OpenAPI components.
import { z } from 'zod';
import { named } from './named.js';
import { COMPLEXITIES, STAGES, type Stage } from '../scoring/types.js';
import { isStage, parseStages } from '../scoring/stages.js';
import { DISPLAY_SAFE, DISPLAY_SAFE_MESSAGE } from '../unicode.js';

export const LIMITS = {
  /** Largest request body accepted, in bytes (413 above). */
  bodyBytes: 32 * 1024 * 1024,
  runsPerBatch: 5000,
  tasksPerRequest: 5000,
  idLength: 128,
  nameLength: 200,
  /** Each vote's reason and evidence. */
  voteTextLength: 8000,
  reasonLength: 2000,
  criteriaPerTask: 200,
  maxJudgeVotes: 15,
  /** Leaderboard entries per page (`?limit=`). */
  leaderboardPage: 1000,
  /** Hotkeys in one leaderboard read (`?hotkeys=`); a URL holds about 16 KB. */
  hotkeysPerRead: 200,
  /** Validators on a competition's allow-list. */
  allowListLength: 1000,
} as const;

const ID_CHARACTERS = '[A-Za-z0-9._:-]+';
const ID_MESSAGE =
  "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -, and not '.' or '..' (URL path segments clients resolve away)";

/** The one pattern of an identifier other than `.`, `..` and the `reserved` words. */
export function identifierPattern(reserved: readonly string[]): RegExp {
  const excluded = ['\\.\\.?', ...reserved].map((word) => `(?!${word}$)`).join('');
  return new RegExp(`^${excluded}${ID_CHARACTERS}$`);
}

/**
 * An identifier other than `.`, `..` and the words in `reserved` (each with the message that says
 * why), checked by ONE pattern with a lookahead per excluded word. Two `.regex` checks would
 * become an `allOf` of two patterns in the document, which openapi-typescript-codegen writes as an
 * empty type and swagger-typescript-api as `any` (docs/clients.md).
 */
function identifier(reserved: Record<string, string>) {
  return z
    .string()
    .min(1)
    .max(LIMITS.idLength)
    .regex(identifierPattern(Object.keys(reserved)), {
      error: (issue) => (typeof issue.input === 'string' && reserved[issue.input]) || ID_MESSAGE,
    });
}

// `.` and `..` are path segments every URL-normalising client (fetch, curl, browsers) resolves
// away: an item of such an id could be stored but never read back.
export const Id = identifier({}).describe(
  'Identifier: 1 to 128 characters from `[A-Za-z0-9._:-]`, other than `.` and `..`.',
);

/**
 * A display name (a competition's, a validator's): 1 to 200 characters, none of them a control
 * character or a bidirectional override, which would hide or reorder what a page or a log shows.
 */
export const DisplayName = z.string().min(1).max(LIMITS.nameLength).regex(DISPLAY_SAFE, DISPLAY_SAFE_MESSAGE);

const NOT_EXPORT = "must not be 'export' (…/runs/export and …/tasks/export are the export routes)";

/**
 * The id of a stored run or task: an `Id` other than `export`, which names the export route beside
 * them (`…/runs/export`, `…/tasks/export`); a run or task of that id could never be read back.
 */
export const ItemId = identifier({ export: NOT_EXPORT });

/** A task's id: an `ItemId` other than `imports`, which names the import sessions beside the tasks (`…/tasks/imports`). */
export const TaskId = identifier({
  export: NOT_EXPORT,
  imports: "must not be 'imports' (…/tasks/imports lists the import sessions)",
});

/** Why `baseline` is no miner's hotkey: the words of the refusal, in the schema and its fast check. */
export const RESERVED_HOTKEYS = {
  baseline: "must not be 'baseline' (coverage names each task's baseline pairs so: ?miner=baseline)",
} as const;

/**
 * A miner's hotkey: an `Id` other than `baseline`, which coverage uses as the miner of a task's
 * baseline pairs (`?miner=baseline`, cursors `task/baseline`); a miner of that hotkey would make
 * two pairs of one key.
 */
export const MinerHotkey = identifier(RESERVED_HOTKEYS);

export const StageSchema = named('Stage', 'Competition stage.', z.enum(STAGES));

export const ComplexitySchema = named('Complexity', 'Complexity group.', z.enum(COMPLEXITIES));

export const TokenCount = z
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('A token count: an integer from 0 to 2^53-1.');

export const ProblemSchema = named(
  'Problem',
  'RFC 9457 problem details.',
  z.object({
    type: z.string().describe('URI naming the kind of problem.'),
    title: z.string().describe('Short summary of the kind of problem.'),
    status: z.number().int().describe('HTTP status code.'),
    detail: z.string().describe('What went wrong with this request, naming the field or item.'),
    errors: z
      .array(
        z.object({
          path: z.string().describe('Where the problem is, e.g. `body/runs/3/tokens/input`.'),
          message: z.string().describe('What is wrong there.'),
        }),
      )
      .optional()
      .describe(
        'Each invalid field, for validation errors: the first 100 (`detail` then says how many there are in all).',
      ),
  }),
);

/** Response map entries for the error statuses a route can return. */
export function problems(...statuses: number[]): Record<number, typeof ProblemSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema]));
}

export const CompetitionParams = z.object({ competitionId: Id.describe('Competition identifier.') });

/** `?stages=a,b`: parsed once, here, to a stage set in canonical order (SPEC 8); absent or blank
 * means the competition's final stages. An unknown stage is a 400 naming it. */
export const StagesParam = z
  .string()
  .max(200)
  .optional()
  .transform((raw, ctx): Stage[] | undefined => {
    if (raw === undefined || raw.replaceAll(',', '').trim() === '') return undefined;
    const stages = parseStages(raw);
    if (stages) return stages;
    const bad = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !isStage(s.toLowerCase()));
    ctx.addIssue({ code: 'custom', message: `unknown stage ${bad.join(', ')}; stages are ${STAGES.join(', ')}` });
    return z.NEVER;
  })
  .describe("Comma-separated stages to score, e.g. `screener_2,evaluation`. Default: the competition's `finalStages`.");

export const StagesQuery = z.strictObject({ stages: StagesParam });

/**
 * A query-string integer from `min` to `max`, `fallback` when left out: decimal digits only.
 * `Number()` (z.coerce) would also read `0x10` as 16, `1e2` as 100 and ` 5` as 5, numbers the
 * client never wrote.
 */
export function queryInteger(min: number, max: number, fallback: number): z.ZodType<number>;
export function queryInteger(min: number, max?: number): z.ZodType<number | undefined>;
export function queryInteger(min: number, max = Number.MAX_SAFE_INTEGER, fallback?: number): z.ZodType {
  const n = z
    .number({ error: `must be a decimal integer from ${min} to ${max.toLocaleString('en-US')}` })
    .int()
    .min(min)
    .max(max);
  return z.preprocess(
    (v) => (typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : v),
    fallback === undefined ? n.optional() : n.default(fallback),
  );
}
