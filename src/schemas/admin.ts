import { z } from 'zod';
import { LIMITS } from './common.js';

export const ValidatorInputSchema = z
  .strictObject({ name: z.string().min(1).max(LIMITS.nameLength).describe('Who runs the validator.') })
  .describe('A validator to create.');
z.globalRegistry.add(ValidatorInputSchema, { id: 'NewValidator', description: ValidatorInputSchema.description });

export const ValidatorSchema = z
  .object({
    id: z.string().describe('Validator id.'),
    name: z.string().describe('Display name.'),
    createdAt: z.string().describe('Creation time, ISO 8601 UTC.'),
    revokedAt: z.string().nullable().describe('When the key was revoked, or null.'),
  })
  .describe('A validator (never its key).');
z.globalRegistry.add(ValidatorSchema, { id: 'Validator', description: ValidatorSchema.description });

export const ValidatorCreatedSchema = ValidatorSchema.extend({
  apiKey: z.string().describe('The validator\'s key. Shown this once: only its hash is stored.'),
}).describe('A new validator and its key.');
z.globalRegistry.add(ValidatorCreatedSchema, { id: 'ValidatorCreated', description: ValidatorCreatedSchema.description });

export const ValidatorListSchema = z
  .object({ validators: z.array(ValidatorSchema).describe('Validators, oldest first.') })
  .describe('The validators.');
z.globalRegistry.add(ValidatorListSchema, { id: 'ValidatorList', description: ValidatorListSchema.description });

export const MinerInputSchema = z
  .strictObject({
    excluded: z.boolean().describe('Exclude the miner from ranks, contests and weights.'),
    reason: z.string().max(LIMITS.reasonLength).optional().describe('Why, for the record.'),
  })
  .describe('A miner\'s standing.');
z.globalRegistry.add(MinerInputSchema, { id: 'MinerStanding', description: MinerInputSchema.description });

export const MinerSchema = z
  .object({
    competitionId: z.string().describe('Competition identifier.'),
    hotkey: z.string().describe('Miner hotkey.'),
    excluded: z.boolean().describe('Whether the miner is excluded.'),
    reason: z.string().nullable().describe('Why, or null.'),
  })
  .describe('A miner\'s standing.');
z.globalRegistry.add(MinerSchema, { id: 'Miner', description: MinerSchema.description });
