import { z } from 'zod';
import { LIMITS } from './common.js';

export const ValidatorInputSchema = z
  .strictObject({
    name: z.string().min(1).max(LIMITS.nameLength).describe('Who runs the validator.'),
    hotkey: z
      .string()
      .max(64)
      .optional()
      .describe(
        "The validator's ss58 hotkey (sr25519). Given: it signs its requests (Epistula v2) and gets no API key.",
      ),
  })
  .describe('A validator to create.');
z.globalRegistry.add(ValidatorInputSchema, { id: 'NewValidator', description: ValidatorInputSchema.description });

export const ValidatorSchema = z
  .object({
    id: z.string().describe('Validator id.'),
    name: z.string().describe('Display name.'),
    hotkey: z.string().nullable().describe('ss58 hotkey of a signing validator; null for a bearer-key validator.'),
    createdAt: z.string().describe('Creation time, ISO 8601 UTC.'),
    revokedAt: z.string().nullable().describe('When the key was revoked, or null.'),
  })
  .describe('A validator (never its key).');
z.globalRegistry.add(ValidatorSchema, { id: 'Validator', description: ValidatorSchema.description });

export const ValidatorCreatedSchema = ValidatorSchema.extend({
  apiKey: z
    .string()
    .optional()
    .describe(
      "The validator's key, for a validator created without a hotkey. Shown this once: only its hash is stored.",
    ),
}).describe('A new validator and its key.');
z.globalRegistry.add(ValidatorCreatedSchema, {
  id: 'ValidatorCreated',
  description: ValidatorCreatedSchema.description,
});

export const ValidatorListSchema = z
  .object({ validators: z.array(ValidatorSchema).describe('Validators, oldest first.') })
  .describe('The validators.');
z.globalRegistry.add(ValidatorListSchema, { id: 'ValidatorList', description: ValidatorListSchema.description });

export const MinerInputSchema = z
  .strictObject({
    excluded: z.boolean().describe('Exclude the miner from ranks, contests and weights.'),
    reason: z.string().max(LIMITS.reasonLength).optional().describe('Why, for the record.'),
  })
  .describe("A miner's standing.");
z.globalRegistry.add(MinerInputSchema, { id: 'MinerStanding', description: MinerInputSchema.description });

export const MinerSchema = z
  .object({
    competitionId: z.string().describe('Competition identifier.'),
    hotkey: z.string().describe('Miner hotkey.'),
    excluded: z.boolean().describe('Whether the miner is excluded.'),
    reason: z.string().nullable().describe('Why, or null.'),
  })
  .describe("A miner's standing.");
z.globalRegistry.add(MinerSchema, { id: 'Miner', description: MinerSchema.description });

export const ValidatorStandingInputSchema = z
  .strictObject({
    excluded: z.boolean().describe("Set the validator's runs aside: they take part in no score, weight or snapshot."),
    reason: z.string().max(LIMITS.reasonLength).optional().describe('Why, for the record.'),
  })
  .describe("A validator's standing in a competition.");
z.globalRegistry.add(ValidatorStandingInputSchema, {
  id: 'ValidatorStandingChange',
  description: ValidatorStandingInputSchema.description,
});

export const ValidatorStandingSchema = z
  .object({
    competitionId: z.string().describe('Competition identifier.'),
    validatorId: z.string().describe('Validator id.'),
    excluded: z.boolean().describe('Whether its runs are set aside.'),
    reason: z.string().nullable().describe('Why, or null.'),
  })
  .describe("A validator's standing in a competition.");
z.globalRegistry.add(ValidatorStandingSchema, {
  id: 'ValidatorStanding',
  description: ValidatorStandingSchema.description,
});

export const AgreementSchema = z
  .object({
    sharedPairs: z
      .number()
      .int()
      .describe('(task, miner) pairs, baseline included, that this and another counted validator both ran.'),
    resolveRateDelta: z
      .number()
      .nullable()
      .describe("Mean over shared pairs of (own resolve rate - the others' pooled rate); null without a shared pair."),
    flagged: z.boolean().describe('sharedPairs >= 10 and |resolveRateDelta| >= 0.2 (SPEC 10).'),
  })
  .describe("How a validator's reports compare with the others' (SPEC 10).");
z.globalRegistry.add(AgreementSchema, { id: 'Agreement', description: AgreementSchema.description });

export const CompetitionValidatorSchema = z
  .object({
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
  })
  .describe("A validator's activity and agreement in one competition.");
z.globalRegistry.add(CompetitionValidatorSchema, {
  id: 'CompetitionValidator',
  description: CompetitionValidatorSchema.description,
});

export const CompetitionValidatorListSchema = z
  .object({
    competitionId: z.string().describe('Competition identifier.'),
    stages: z.array(z.string()).describe('Stages the figures cover.'),
    validators: z.array(CompetitionValidatorSchema).describe('Every validator that sent runs, or is excluded, by id.'),
  })
  .describe('Per-validator activity and agreement (SPEC 10).');
z.globalRegistry.add(CompetitionValidatorListSchema, {
  id: 'CompetitionValidatorList',
  description: CompetitionValidatorListSchema.description,
});

export const AuditEntrySchema = z
  .object({
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
  })
  .describe('One audit log entry.');
z.globalRegistry.add(AuditEntrySchema, { id: 'AuditEntry', description: AuditEntrySchema.description });

export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema).describe('Entries, oldest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
  })
  .describe('A page of the audit log.');
z.globalRegistry.add(AuditPageSchema, { id: 'AuditPage', description: AuditPageSchema.description });
