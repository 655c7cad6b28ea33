// Reads a snapshot file for `verify`: valid UTF-8, valid JSON, with the members a snapshot must have
// (snapshotSchema.ts). Its formatting is free: the hash is over the canonical JSON of the values
// (docs/CANONICAL_JSON.md), so a snapshot re-indented by `jq` or `python -m json.tool`, or saved by
// a verifier in another language, checks the same, and a changed value fails the hash check.
import { SnapshotSchema, type Snapshot } from './snapshotSchema.js';

export function utf8(bytes: string | Uint8Array, what: string): string {
  if (typeof bytes === 'string') return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${what} is not valid UTF-8`);
  }
}

export function readSnapshot(bytes: string | Uint8Array, what: string): Snapshot {
  const text = utf8(bytes, what);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${what}: ${(issue?.path ?? []).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
