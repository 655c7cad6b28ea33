import { z } from 'zod';
import { named } from './named.js';
import { DisplayName, LIMITS } from './common.js';

export const ValidatorInputSchema = named(
  'NewValidator',
  'A validator to create.',
  z.strictObject({
    name: DisplayName.describe('Who runs the validator: no control characters or bidirectional controls.'),
    hotkey: z
      .string()
      .max(64)
      .optional()
      .describe(
        "The validator's ss58 hotkey (sr25519). Given: it signs its requests (Epistula v2) and gets no API key.",
      ),
  }),
);

export const ValidatorSchema = named(
  'Validator',
  'A validator (never its key).',
  z.object({
    id: z.string().describe('Validator id.'),
    name: z.string().describe('Display name.'),
    hotkey: z.string().nullable().describe('ss58 hotkey of a signing validator; null for a bearer-key validator.'),
    createdAt: z.string().describe('Creation time, ISO 8601 UTC.'),
    revokedAt: z.string().nullable().describe('When the key was revoked, or null.'),
  }),
);

export const ValidatorCreatedSchema = named(
  'ValidatorCreated',
  'A new validator and its key.',
  ValidatorSchema.extend({
    apiKey: z
      .string()
      .optional()
      .describe(
        "The validator's key, for a validator created without a hotkey. Shown this once: only its hash is stored.",
      ),
  }),
);

export const ValidatorListSchema = named(
  'ValidatorList',
  'The validators.',
  z.object({ validators: z.array(ValidatorSchema).describe('Validators, oldest first.') }),
);

export const MinerInputSchema = named(
  'MinerStanding',
  "A miner's standing.",
  z.strictObject({
    excluded: z.boolean().describe('Exclude the miner from ranks, contests and weights.'),
    reason: z.string().max(LIMITS.reasonLength).optional().describe('Why, for the record.'),
  }),
);

export const MinerSchema = named(
  'Miner',
  "A miner's standing.",
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    hotkey: z.string().describe('Miner hotkey.'),
    excluded: z.boolean().describe('Whether the miner is excluded.'),
    reason: z.string().nullable().describe('Why, or null.'),
  }),
);

export const ValidatorStandingInputSchema = named(
  'ValidatorStandingChange',
  "A validator's standing in a competition.",
  z.strictObject({
    excluded: z.boolean().describe("Set the validator's runs aside: they take part in no score, weight or snapshot."),
    reason: z.string().max(LIMITS.reasonLength).optional().describe('Why, for the record.'),
  }),
);

export const ValidatorStandingSchema = named(
  'ValidatorStanding',
  "A validator's standing in a competition.",
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    validatorId: z.string().describe('Validator id.'),
    excluded: z.boolean().describe('Whether its runs are set aside.'),
    reason: z.string().nullable().describe('Why, or null.'),
  }),
);

export const AgreementSchema = named(
  'Agreement',
  "How a validator's reports compare with the others' (SPEC 10).",
  z.object({
    sharedPairs: z
      .number()
      .int()
      .describe('(task, miner) pairs, baseline included, that this and another counted validator both ran.'),
    resolveRateDelta: z
      .number()
      .nullable()
      .describe("Mean over shared pairs of (own resolve rate - the others' pooled rate); null without a shared pair."),
    flagged: z.boolean().describe('sharedPairs >= 10 and |resolveRateDelta| >= 0.2 (SPEC 10).'),
  }),
);

export const CompetitionValidatorSchema = named(
  'CompetitionValidator',
  "A validator's activity and agreement in one competition.",
  z.object({
    id: z.string().describe('Validator id.'),
    name: z.string().describe('Display name.'),
    hotkey: z.string().nullable().describe('ss58 hotkey, or null for a bearer-key validator.'),
    excluded: z.boolean().describe('Its runs are set aside in this competition.'),
    runs: z.number().int().describe('Runs it sent in the chosen stages.'),
    baselineRuns: z.number().int().describe('Of those, baseline runs.'),
    minerRuns: z.number().int().describe('Of those, miner runs.'),
    miners: z.number().int().describe('Distinct miners it ran.'),
    tasks: z.number().int().describe('Distinct tasks it ran.'),
    resolveRate: z.number().nullable().describe('Resolved runs / runs; null without runs.'),
    agreement: AgreementSchema,
  }),
);

export const CompetitionValidatorListSchema = named(
  'CompetitionValidatorList',
  'Per-validator activity and agreement (SPEC 10).',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(z.string()).describe('Stages the figures cover.'),
    validators: z.array(CompetitionValidatorSchema).describe('Every validator that sent runs, or is excluded, by id.'),
  }),
);

export const AuditEntrySchema = named(
  'AuditEntry',
  'One audit log entry.',
  z.object({
    seq: z.number().int().describe('Position in the log, increasing.'),
    at: z.string().describe('When, ISO 8601 UTC.'),
    actor: z
      .object({
        kind: z.enum(['admin', 'validator']).describe('Who acted.'),
        id: z.string().nullable().describe('Validator id; null for the admin.'),
      })
      .describe('Who acted.'),
    action: z.string().describe('What was done, e.g. `competition.put`, `run.delete`.'),
    competitionId: z.string().nullable().describe('The competition concerned, if any.'),
    target: z.string().describe('What was acted on.'),
    summary: z
      .record(z.string(), z.unknown())
      .describe("The change: new values, counts, or a deleted run's whole content."),
  }),
);

export const AuditPageSchema = named(
  'AuditPage',
  'A page of the audit log.',
  z.object({
    entries: z.array(AuditEntrySchema).describe('Entries, oldest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
  }),
);
