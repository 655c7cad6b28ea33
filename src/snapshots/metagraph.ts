// A competition's metagraph (SPEC 11): the subnet at one block, as the operator recorded it. Pure:
// the server validates and digests it here, and so do `score` and `verify` for the metagraph an
// input document carries.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeSs58 } from '../signatures/ss58.js';
import { canonicalJson } from './canonicalJson.js';

const U16 = 65535;
const Uid = z.number().int().min(0).max(U16).describe('A uid: an integer from 0 to 65535.');
const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const MetagraphNeuronSchema = z.strictObject({
  uid: Uid,
  hotkey: z.string().min(1).max(64).describe('The neuron’s ss58 hotkey (checksum checked).'),
  validator: z.boolean().describe('The neuron holds a validator permit.'),
});

/** The metagraph as stored and carried by input documents: defaults filled in, neurons by uid. */
export const MetagraphSchema = z.strictObject({
  netuid: Uid.describe('The subnet.'),
  block: Count.describe('The block the metagraph was read at.'),
  neurons: z
    .array(MetagraphNeuronSchema)
    .max(U16 + 1)
    .describe('Registered neurons, ascending by uid.'),
  burnUid: Uid.describe('The uid that receives what is burned (the subnet owner’s).'),
  versionKey: Count.describe('Passed to `set_weights` unchanged.'),
  maxWeightLimit: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe('The subnet’s max weight limit, a fraction; null when not recorded.'),
  minAllowedWeights: z
    .number()
    .int()
    .min(0)
    .max(U16)
    .nullable()
    .describe('The subnet’s min allowed weights; null when not recorded.'),
});

export type Metagraph = z.infer<typeof MetagraphSchema>;

/** What the operator sends: `validator`, `burnUid`, `versionKey` and the limits may be left out. */
export const MetagraphInput = z.strictObject({
  ...MetagraphSchema.shape,
  neurons: z
    .array(MetagraphNeuronSchema.extend({ validator: MetagraphNeuronSchema.shape.validator.optional() }))
    .max(U16 + 1)
    .describe('Registered neurons: each uid and each hotkey at most once.'),
  burnUid: MetagraphSchema.shape.burnUid.optional(),
  versionKey: MetagraphSchema.shape.versionKey.optional(),
  maxWeightLimit: MetagraphSchema.shape.maxWeightLimit.optional(),
  minAllowedWeights: MetagraphSchema.shape.minAllowedWeights.optional(),
});
export type MetagraphInput = z.infer<typeof MetagraphInput>;

/** The stored form: defaults filled in (burnUid 0, versionKey 0, validator false), neurons by uid. */
export function normalizeMetagraph(input: MetagraphInput): Metagraph {
  return {
    netuid: input.netuid,
    block: input.block,
    neurons: input.neurons
      .map((n) => ({ uid: n.uid, hotkey: n.hotkey, validator: n.validator ?? false }))
      .sort((a, b) => a.uid - b.uid),
    burnUid: input.burnUid ?? 0,
    versionKey: input.versionKey ?? 0,
    maxWeightLimit: input.maxWeightLimit ?? null,
    minAllowedWeights: input.minAllowedWeights ?? null,
  };
}

export interface MetagraphProblem {
  /** Where, under the metagraph: e.g. `['neurons', 3, 'hotkey']`. */
  path: (string | number)[];
  message: string;
}

/** The ss58 prefix of Bittensor's addresses (the generic Substrate one): its hotkeys start with 5. */
export const BITTENSOR_SS58_PREFIX = 42;

/**
 * What the shape cannot say: each hotkey an ss58 address whose checksum holds, and each uid and
 * each hotkey at most once: one key written with two network prefixes is one hotkey twice. With
 * `prefix`, each address must be of that network (a metagraph recorded now: one pasted in another
 * network's format would match no miner's runs, and pay every share to burnUid unsaid). Every
 * problem names the neuron by its index in the list given.
 */
export function metagraphProblems(
  neurons: readonly { uid: number; hotkey: string }[],
  { prefix }: { prefix?: number } = {},
): MetagraphProblem[] {
  const problems: MetagraphProblem[] = [];
  const uids = new Map<number, number>();
  const keys = new Map<string, number>();
  neurons.forEach((n, i) => {
    const at: (string | number)[] = ['neurons', i, 'hotkey'];
    const decoded = decodeSs58(n.hotkey);
    if (!decoded.ok) problems.push({ path: at, message: `not an ss58 address: ${decoded.message}` });
    else if (prefix !== undefined && decoded.prefix !== prefix)
      problems.push({
        path: at,
        message: `an ss58 address of network prefix ${decoded.prefix}; hotkeys here are Bittensor's, prefix ${prefix} (they start with 5)`,
      });
    const uidAt = uids.get(n.uid);
    if (uidAt !== undefined)
      problems.push({ path: ['neurons', i, 'uid'], message: `uid ${n.uid} is also neuron ${uidAt}'s` });
    else uids.set(n.uid, i);
    const key = decoded.ok ? Buffer.from(decoded.publicKey).toString('hex') : n.hotkey;
    const keyAt = keys.get(key);
    if (keyAt === undefined) keys.set(key, i);
    else
      problems.push({
        path: at,
        message:
          neurons[keyAt]!.hotkey === n.hotkey
            ? `hotkey ${n.hotkey} is also neuron ${keyAt}'s`
            : `hotkey ${n.hotkey} is neuron ${keyAt}'s key (${neurons[keyAt]!.hotkey}) in another network's format`,
      });
  });
  return problems;
}

/** SHA-256, lower-case hex, of the metagraph's canonical JSON (RFC 8785). */
export function metagraphDigest(metagraph: Metagraph): string {
  return createHash('sha256').update(canonicalJson(metagraph), 'utf8').digest('hex');
}
