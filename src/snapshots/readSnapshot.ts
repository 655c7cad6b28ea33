// Reads a snapshot file for `verify`: valid UTF-8, valid JSON, in a form the server writes, and
// with the members a snapshot must have (snapshotSchema.ts).
import { canonicalJson } from './canonicalJson.js';
import { SnapshotSchema, type Snapshot } from './snapshotSchema.js';

export function utf8(bytes: string | Uint8Array, what: string): string {
  if (typeof bytes === 'string') return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${what} is not valid UTF-8`);
  }
}

/**
 * The forms a snapshot file may take: as the server sends it (compact JSON.stringify), indented
 * by two spaces, or canonical; each optionally followed by a newline. Being this strict means a
 * changed byte is caught even where it would not change the value (a space, `e` for `E`).
 */
function wellFormed(text: string, json: unknown): boolean {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body === JSON.stringify(json) || body === JSON.stringify(json, null, 2) || body === canonicalJson(json);
}

export function readSnapshot(bytes: string | Uint8Array, what: string): Snapshot {
  const text = utf8(bytes, what);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  if (!wellFormed(text, json)) {
    throw new Error(`${what} is not in a form the server writes (compact or 2-space JSON): edited?`);
  }
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${what}: ${(issue?.path ?? []).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
