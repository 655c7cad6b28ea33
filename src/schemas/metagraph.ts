// The metagraph and weights-on-chain schemas (SPEC 11, API 1.2).
import { z } from 'zod';
import { named } from './named.js';
import { StageSchema } from './common.js';
import { MetagraphInput, MetagraphSchema } from '../snapshots/metagraph.js';

const Digest = z.string().describe('SHA-256, lower-case hex, of the metagraph’s canonical JSON (RFC 8785).');

export const MetagraphInputSchema = named(
  'NewMetagraph',
  'The subnet at one block: every registered neuron by uid and hotkey, each at most once.',
  MetagraphInput,
);

export const MetagraphRecordSchema = named(
  'Metagraph',
  'The metagraph in force (the one recorded last), defaults filled in, neurons ascending by uid.',
  z.object({
    competitionId: z.string().describe('The competition.'),
    version: z.number().int().describe('1 for the first metagraph recorded, then one more for each.'),
    recordedAt: z.string().describe('When it was recorded (ISO 8601, UTC).'),
    digest: Digest,
    ...MetagraphSchema.shape,
  }),
);

const Uid = z.number().int().describe('A uid.');

export const ChainWeightsSchema = named(
  'ChainWeights',
  'The final weights as a validator sets them on chain, by uid (SPEC 11).',
  z.object({
    competitionId: z.string().describe('The competition.'),
    stages: z.array(StageSchema).describe('The stage set scored.'),
    netuid: z.number().int().describe('The metagraph’s subnet.'),
    block: z.number().int().describe('The block the metagraph was read at.'),
    metagraphDigest: Digest,
    versionKey: z.number().int().describe('For `set_weights(version_key=…)`.'),
    uids: z.array(Uid).describe('For `set_weights(uids=…)`: ascending.'),
    weights: z
      .array(z.number().int())
      .describe(
        'For `set_weights(weights=…)`: u16 integers, as `convert_weights_and_uids_for_emit` makes them from `floats`.',
      ),
    floats: z
      .record(z.string(), z.number())
      .describe('The float weight of each uid that receives weight, summing to 1 (within rounding).'),
    burnUid: Uid.describe('The uid that receives what is burned.'),
    unregistered: z
      .array(
        z.object({ hotkey: z.string().describe('Miner hotkey.'), weight: z.number().describe('Its INC, burned.') }),
      )
      .describe(
        'Miners whose hotkey is not in the metagraph, with the weight they would have had; it goes to burnUid.',
      ),
    limits: z
      .object({
        maxWeightLimitMet: z
          .boolean()
          .nullable()
          .describe('The largest share is within maxWeightLimit; null when not recorded.'),
        minAllowedWeightsMet: z
          .boolean()
          .nullable()
          .describe('At least minAllowedWeights uids (or every neuron of a smaller subnet); null when not recorded.'),
      })
      .nullable()
      .describe('Whether the integer vector respects the recorded subnet limits; null when none is recorded.'),
    awaitingRuns: z
      .array(z.object({ uid: Uid, hotkey: z.string().describe('Registered hotkey.') }))
      .describe('Registered neurons (not validators, not burnUid) that the competition knows no miner run of yet.'),
  }),
);
