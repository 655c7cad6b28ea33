// What `verify` requires of a snapshot (API.md "Snapshots"). Members beyond these are allowed
// and, like every member but `hash` and `signature`, covered by the hash.
import { z } from 'zod';
import { StageSchema } from '../schemas/common.js';

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits');

export const SnapshotSchema = z.looseObject({
  competitionId: z.string().min(1),
  seq: z.number().int().min(0),
  takenAt: z.string(),
  stages: z.array(StageSchema).min(1),
  rulesVersion: z.unknown(),
  settings: z.unknown(),
  excluded: z.looseObject({ miners: z.array(z.string()), validators: z.array(z.string()) }),
  inputDigest: Hex64,
  previousHash: Hex64.nullable(),
  hash: Hex64,
  signature: z.string(),
  leaderboard: z.looseObject({ miners: z.array(z.looseObject({ hotkey: z.string() })) }),
  weights: z.looseObject({}),
  metagraphDigest: Hex64.optional(),
  chain: z.looseObject({ uids: z.array(z.number()), weights: z.array(z.number()) }).optional(),
});

export type Snapshot = z.infer<typeof SnapshotSchema>;
