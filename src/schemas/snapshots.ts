import { z } from 'zod';
import { named } from './named.js';
import { Id, LIMITS, queryInteger, StageSchema, StagesParam } from './common.js';
import { LeaderboardSchema, WeightsSchema } from './scores.js';
import { TokenWeightsSchema } from './competitions.js';
import { ChainWeightsSchema } from './metagraph.js';

const Hex64 = z.string().describe('64 lower-case hex digits.');

const snapshotFields = {
  competitionId: z.string().describe('Competition identifier.'),
  seq: z.number().int().describe('1, 2, 3… per competition.'),
  takenAt: z.string().describe('When it was taken, ISO 8601 UTC.'),
  stages: z.array(StageSchema).describe('The stage set scored.'),
  rulesVersion: z.string().describe('Version of the scoring rules (SPEC.md) that computed it.'),
  settings: z
    .object({
      name: z.string().describe('Display name.'),
      tokenWeights: TokenWeightsSchema,
      burnRatio: z.number().describe('Share burned.'),
      judgeVotes: z.number().int().describe('Judge votes per criterion.'),
      finalStages: z.array(StageSchema).describe('Final stages.'),
      judgeDigest: Hex64.optional().describe(
        'Digest of the judge configuration the scored QnA runs were graded under (SPEC 12); absent when none was set.',
      ),
    })
    .describe("The competition's settings at the time."),
  excluded: z
    .object({
      miners: z.array(z.string()).describe('Excluded miners.'),
      validators: z.array(z.string()).describe('Excluded validators (their runs are not in the input).'),
    })
    .describe('Exclusions in force.'),
  note: z.string().nullable().describe('The note given when it was taken, if any.'),
  inputDigest: Hex64.describe('SHA-256 (hex) of the input document (GET …/snapshots/{seq}/input).'),
  previousHash: Hex64.nullable().describe('`hash` of the snapshot before; null for the first.'),
  hash: Hex64.describe(
    "SHA-256 (hex) of this snapshot's canonical JSON without `hash` and `signature` (docs/CANONICAL_JSON.md).",
  ),
  metagraphDigest: Hex64.optional().describe(
    'Digest of the metagraph in force when it was taken (SPEC 11); absent when none was recorded.',
  ),
  signature: z
    .string()
    .describe(
      "The server's Ed25519 signature of the 64 ASCII hex digits of `hash`, standard base64 (key: GET /v1/identity).",
    ),
};

export const SnapshotHeadSchema = named(
  'SnapshotHead',
  'A snapshot without its leaderboard, weights and weights on chain.',
  z.object(snapshotFields),
);

export const SnapshotSchema = named(
  'Snapshot',
  'An immutable, signed snapshot of the scores, in a hash chain per competition.',
  z.object({
    ...snapshotFields,
    leaderboard: LeaderboardSchema,
    weights: WeightsSchema,
    chain: ChainWeightsSchema.optional().describe('The weights on chain under that metagraph; absent without one.'),
  }),
);

export const SnapshotListSchema = named(
  'SnapshotList',
  'A page of snapshots.',
  z.object({
    snapshots: z.array(SnapshotHeadSchema).describe('Oldest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
  }),
);

export const SnapshotInputSchema = named(
  'NewSnapshot',
  'A snapshot to take.',
  z.strictObject({
    stages: z
      .array(StageSchema)
      .min(1)
      .max(3)
      .optional()
      .describe("Stage set to score; default the competition's final stages."),
    note: z.string().max(2000).optional().describe('Why it was taken, kept in the snapshot.'),
  }),
);

export const PageQuery = z.strictObject({
  limit: queryInteger(1, 1000, 100).describe('Items per page, 1 to 1,000; default 100.'),
  cursor: z.string().max(32).optional().describe('`nextCursor` of the previous page.'),
});

export const SnapshotParams = z.object({
  competitionId: Id.describe('Competition identifier.'),
  // A string in the path like every identifier (API.md conventions), read as the number it names.
  seq: z
    .string()
    .min(1)
    .max(LIMITS.idLength)
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a snapshot number: 1, 2, 3…')
    .refine((s) => Number.isSafeInteger(Number(s)), 'must be a snapshot number up to 2^53 - 1')
    .transform(Number)
    .describe('Snapshot number.'),
});

export const MinerHistorySchema = named(
  'MinerHistory',
  'A miner across snapshots.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    hotkey: z.string().describe('Miner hotkey.'),
    history: z
      .array(
        z.object({
          seq: z.number().int().describe('Snapshot number.'),
          takenAt: z.string().describe('When.'),
          rank: z.number().int().nullable().describe('Rank then; null when unranked or absent.'),
          normalizedScore: z.number().nullable().describe('S_N then; null when unscored or absent.'),
          finalWeight: z.number().describe('Final weight then (0 when absent).'),
        }),
      )
      .describe('One entry per snapshot, oldest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
  }),
);

export const WeightsHistorySchema = named(
  'WeightsHistory',
  'Final weights across snapshots.',
  z.object({
    competitionId: z.string().describe('Competition identifier.'),
    history: z
      .array(
        z.object({
          seq: z.number().int().describe('Snapshot number.'),
          takenAt: z.string().describe('When.'),
          finalWeights: z.record(z.string(), z.number()).describe('Final weight per hotkey.'),
          burnWeight: z.number().describe('Weight burned.'),
        }),
      )
      .describe('One entry per snapshot, oldest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end.'),
  }),
);

export const IdentitySchema = named(
  'Identity',
  "The server's identities: the address validators sign for, and the key that signs snapshots.",
  z.object({
    hotkey: z
      .string()
      .describe(
        "The server's own ss58 address: every signed request names it in `Epistula-Signed-For` (SCORING_SERVER_HOTKEY, or the key pair the server generated).",
      ),
    publicKey: z.string().describe('The snapshot-signing key in force, SPKI PEM.'),
    signingKeys: z
      .array(
        z.object({
          fingerprint: z.string().describe("SHA-256, lower-case hex, of the key's SPKI DER."),
          publicKey: z.string().describe('SPKI PEM.'),
          recordedAt: z.string().describe('When the server first started with this key (ISO 8601).'),
          inForce: z.boolean().describe('True for the key that signs the snapshots this server takes now.'),
          snapshots: z
            .array(
              z.object({
                competitionId: z.string().describe('The competition.'),
                firstSeq: z.number().int().describe('The first snapshot of the competition this key signed.'),
                lastSeq: z.number().int().describe('The last one, so far for the key in force.'),
              }),
            )
            .describe('Per competition with snapshots by this key, the seqs they span.'),
        }),
      )
      .describe(
        'Every snapshot-signing key the server has used, oldest first: pick the one whose range holds a ' +
          "snapshot's competition and seq to check its signature (`swe-scoring verify --identity`).",
      ),
    algorithm: z.literal('ed25519').describe('Signature algorithm.'),
    rulesVersion: z.string().describe('Version of the scoring rules this server computes.'),
  }),
);

export const ScoreResultSchema = named(
  'ScoreResult',
  'Scores computed from an input document, nothing stored.',
  z.object({
    leaderboard: LeaderboardSchema,
    weights: WeightsSchema,
    chain: ChainWeightsSchema.optional().describe('The weights on chain, when the document carries a metagraph.'),
  }),
);

export const ScoreQuery = z.strictObject({ stages: StagesParam });
