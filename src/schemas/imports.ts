// Import sessions: request and response schemas.
import { z } from 'zod';
import { named } from './named.js';
import { ComplexityInput } from './tasks.js';
import { CompetitionParams, Id, LIMITS, StageSchema } from './common.js';

export const ImportSessionInputSchema = named(
  'NewImportSession',
  'A task file to upload in chunks.',
  z.strictObject({
    format: z.enum(['jsonl', 'parquet']).describe('`jsonl` (JSON Lines) or `parquet`.'),
    stage: StageSchema.optional().describe(
      'Stage of every imported task. Left out: stored tasks keep theirs, new ones get `evaluation`.',
    ),
    complexity: ComplexityInput.optional().describe(
      'Complexity of every imported task (any case). Left out: stored tasks keep theirs, new ones get none.',
    ),
  }),
);

export const ImportSessionSchema = named(
  'ImportSession',
  'An import session.',
  z.object({
    sessionId: z.string().describe('Session id, for the chunk, commit and cancel requests.'),
    competitionId: z.string().describe('Competition the tasks go to.'),
    format: z.enum(['jsonl', 'parquet']).describe('File format.'),
    state: z
      .enum(['open', 'committing', 'cancelled'])
      .describe('`open` takes chunks; `committing` is being parsed and stored.'),
    receivedChunks: z.number().int().describe('Chunks received; the next chunk number.'),
    receivedBytes: z.number().int().describe('Bytes received.'),
    expiresAt: z.string().describe('When the session expires if no request comes (ISO 8601 UTC).'),
  }),
);

export const ImportSessionListSchema = named(
  'ImportSessionList',
  "A competition's open import sessions, oldest first.",
  z.object({ sessions: z.array(ImportSessionSchema).describe('Sessions not yet committed, cancelled or expired.') }),
);

export const ImportCommitSchema = named(
  'ImportCommit',
  'What a committed import stored.',
  z.object({
    sessionId: z.string().describe('The session, now closed.'),
    imported: z.number().int().describe('Tasks created.'),
    updated: z.number().int().describe('Existing tasks changed.'),
    unchanged: z.number().int().describe('Tasks sent exactly as stored.'),
  }),
);

export const SessionParams = CompetitionParams.extend({ sessionId: Id.describe('Import session id.') });
export const ChunkParams = SessionParams.extend({
  n: z
    .string()
    .min(1)
    .max(LIMITS.idLength)
    .regex(/^(0|[1-9][0-9]{0,6})$/, 'must be a chunk number: 0, 1, 2, …')
    .transform(Number)
    .describe('Chunk number: 0, 1, 2, … in order.'),
});
