// Validator liveness (API.md 1.2, SPEC 13): the heartbeat a validator sends, and the versions it names.
import { valid } from 'semver';
import { z } from 'zod';
import { named } from './named.js';

/** A semantic version in its canonical form (`1.4.0`, `2.0.0-rc.1`): what `minValidatorVersion` and heartbeats carry. */
export const SemverSchema = z
  .string()
  .max(64)
  .refine((v) => valid(v) === v, 'must be a semantic version MAJOR.MINOR.PATCH such as 1.4.0 (no leading v)')
  .describe('A semantic version (semver.org), e.g. `1.4.0` or `2.0.0-rc.1`.');

export const HeartbeatInputSchema = named(
  'Heartbeat',
  "A validator's heartbeat: it is alive, and runs this version.",
  z.strictObject({
    version: SemverSchema.describe("The validator's software version (semver), e.g. `1.4.0`."),
    codeDigest: z
      .string()
      .regex(/^(sha256:)?[0-9a-f]{64}$/, 'must be a SHA-256 digest: 64 lowercase hex digits, optionally after sha256:')
      .optional()
      .describe("SHA-256 of the validator's code (64 lowercase hex digits, optionally prefixed `sha256:`)."),
  }),
);

/** What the server holds of a validator's liveness; also part of validator listings. */
export const livenessFields = {
  lastSeen: z.string().nullable().describe('Time of the last heartbeat, ISO 8601 UTC; null: never sent one.'),
  version: z.string().nullable().describe('Version the last heartbeat announced; null: none.'),
  silent: z
    .boolean()
    .describe('No heartbeat for longer than SCORING_VALIDATOR_SILENT_AFTER_MS (default 1 h), or never one.'),
};

export const HeartbeatSchema = named(
  'HeartbeatReceived',
  'The heartbeat as recorded.',
  z.object({
    id: z.string().describe('Validator id.'),
    ...livenessFields,
    codeDigest: z.string().nullable().describe('Code digest the last heartbeat announced; null: none.'),
  }),
);
