// The judge configuration schemas (SPEC 12, API 1.2).
import { z } from 'zod';
import { named } from './named.js';
import { JudgeVotes } from './competitions.js';
import { CompetitionParams, LIMITS } from './common.js';

/** A judge digest: SHA-256, 64 lower-case hex digits. */
export const JUDGE_DIGEST_PATTERN = /^[0-9a-f]{64}$/;

export const JudgeDigest = z
  .string()
  .min(1)
  .max(LIMITS.idLength)
  .regex(JUDGE_DIGEST_PATTERN, 'a SHA-256 digest: 64 lower-case hex digits')
  .describe('SHA-256, lower-case hex, of the judge configuration’s canonical JSON (RFC 8785).');

/**
 * Levels an outputSchema may nest (the schema itself is one). A vote's JSON Schema needs a few; the
 * bound keeps the canonical JSON of the digest and of every snapshot's input, which recurses, far
 * from the stack's end.
 */
export const OUTPUT_SCHEMA_DEPTH = 32;

/**
 * Characters an outputSchema may take as JSON: as many as the prompt. A vote's JSON Schema is a few
 * hundred; the bound keeps every read of the configuration, its digest and each snapshot's input
 * small. A 5 MB schema of 200,000 properties, accepted before, cost its PUT 2.4 s and each read of
 * it 0.7 s.
 */
export const OUTPUT_SCHEMA_CHARACTERS = 200_000;

/** Whether a JSON value nests deeper than `max` levels (a scalar is 0, `{}` and `[]` are 1); no recursion. */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth === max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Whether any number in `value` is one `bad` names. No recursion. */
function holdsNumber(value: unknown, bad: (n: number) => boolean): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number' && bad(v)) return true;
    if (v !== null && typeof v === 'object') for (const child of Object.values(v)) stack.push(child);
  }
  return false;
}

/**
 * A number the JSON parse could not keep exactly: an integer beyond ±(2^53 − 1), outside I-JSON
 * (RFC 7493), which RFC 8785's canonical JSON (the digest) requires. `9007199254740993` arrives as
 * …992: the digest would be of another schema than the sender's, which its own canonicalizer may
 * keep exactly.
 */
const inexactInteger = (n: number) => Number.isInteger(n) && !Number.isSafeInteger(n);
/**
 * A number past the largest double (`1e400`), which the JSON parse gives as ±Infinity: no JSON
 * number, and RFC 8785's canonical JSON (the digest) has none to write.
 */
const infinite = (n: number) => !Number.isFinite(n);

const JudgeFields = {
  model: z.string().min(1).max(200).describe('The judge model, as the validator calls it.'),
  reasoningEffort: z.string().min(1).max(64).describe('The reasoning effort the judge runs at, e.g. `high`.'),
  votes: JudgeVotes.describe('Votes per criterion: the competition’s `judgeVotes`.'),
  temperature: z.number().min(0).max(2).describe('Sampling temperature, 0 to 2.'),
  promptTemplate: z
    .string()
    .min(1)
    .max(200_000)
    .refine((t) => t.includes('{answer_date}'), 'the prompt must carry the {answer_date} placeholder')
    .describe('The judge’s prompt text with the placeholders the validator fills, `{answer_date}` among them.'),
  outputSchema: z
    .record(z.string(), z.unknown())
    // First, and the last check when it fails: the size's JSON.stringify recurses.
    .refine((schema) => !nestsDeeper(schema, OUTPUT_SCHEMA_DEPTH), {
      message: `nests deeper than ${OUTPUT_SCHEMA_DEPTH} levels; a vote's JSON Schema needs a few`,
      abort: true,
    })
    .refine(
      (schema) => JSON.stringify(schema).length <= OUTPUT_SCHEMA_CHARACTERS,
      `is longer than ${OUTPUT_SCHEMA_CHARACTERS.toLocaleString('en-US')} characters as JSON; a vote's JSON Schema needs a few hundred`,
    )
    .refine(
      (schema) => !holdsNumber(schema, infinite),
      'holds a number past the largest double (about 1.8e308), which JSON parses as Infinity and the digest (RFC 8785) cannot take; write it as a string or a smaller number',
    )
    .refine(
      (schema) => !holdsNumber(schema, inexactInteger),
      'holds an integer beyond ±(2^53 − 1), which JSON numbers do not keep exactly (I-JSON, RFC 7493) and the digest (RFC 8785) cannot take; write it as a string or a smaller number',
    )
    .describe(
      `The JSON Schema of one vote, as the judge is asked to answer; at most ${OUTPUT_SCHEMA_DEPTH} levels deep and ${OUTPUT_SCHEMA_CHARACTERS.toLocaleString('en-US')} characters as JSON.`,
    ),
};

export const JudgeInputSchema = named(
  'NewJudgeConfiguration',
  'The judge that grades QnA runs (SPEC 12); its digest binds every grade made under it.',
  // Strict: a field the digest does not cover (a misspelt `temprature`, an `extra`) is a 400
  // naming it, not dropped while the sender believes it part of the judge's identity.
  z.strictObject(JudgeFields),
);

export const JudgeRecordSchema = named(
  'JudgeConfiguration',
  'A judge configuration as set, with its digest.',
  z.object({
    competitionId: z.string().describe('The competition.'),
    version: z.number().int().describe('1 for the first configuration set, then one more for each.'),
    recordedAt: z.string().describe('When it was set (ISO 8601, UTC).'),
    digest: JudgeDigest,
    ...JudgeFields,
  }),
);

export const JudgeParams = CompetitionParams.extend({ digest: JudgeDigest });

export type JudgeInput = z.infer<typeof JudgeInputSchema>;

const VerdictStatsSchema = named(
  'VerdictStats',
  'Criterion verdicts (one per scored run and criterion) and how they fared (SPEC 7).',
  z.object({
    verdicts: z.number().int().describe('Criterion verdicts: one per scored QnA run and criterion of the group.'),
    met: z.number().int().describe('Verdicts whose criterion was met (polarity applied after the vote).'),
    split: z.number().int().describe('Verdicts whose votes were not unanimous.'),
    metRate: z.number().nullable().describe('met / verdicts; null with no verdict.'),
    splitRate: z.number().nullable().describe('split / verdicts; null with no verdict.'),
  }),
);

export const StabilityReportSchema = named(
  'StabilityReport',
  'How the criteria fare by kind of change and polarity, over a stage set (SPEC 12).',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(z.string()).describe('Stages whose tasks’ criteria and runs enter the report.'),
    groups: z
      .array(
        z.object({
          change: z
            .string()
            .nullable()
            .describe('The kind of change: null (unchanged), `stability`, `precision` or `scale-correction`.'),
          polarity: z.enum(['positive', 'negative']).describe('The criteria’s polarity.'),
          criteria: z.number().int().describe('Criteria of this kind in the chosen stages’ tasks.'),
          pooled: VerdictStatsSchema.describe('Every scored run: the baseline’s and every miner’s.'),
          baseline: VerdictStatsSchema.describe('The baseline’s scored runs.'),
          miners: z
            .record(z.string(), VerdictStatsSchema)
            .describe('Each miner’s scored runs, by hotkey: every miner with a verdict in the report, in each group.'),
        }),
      )
      .describe(
        'One group per (change, polarity) present: unchanged first, then stability, precision and scale-correction; positive before negative.',
      ),
  }),
);
