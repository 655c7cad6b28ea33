// `swe-scoring verify`: every check that a snapshot and its input document allow, each named,
// so a failure says which one: the input digest, the snapshot hash, the chain link to the
// previous snapshot, the signature, the input itself, and the rescored weights and leaderboard.
import { canonicalJson } from './canonicalJson.js';
import { firstDifference, type Difference } from './firstDifference.js';
import { inputDigest, parseDocument } from './inputDocument.js';
import { scoreDocument } from './scoreDocument.js';
import { hashSnapshot, verifySignature } from './seal.js';
import { SnapshotSchema, type Snapshot } from './snapshotSchema.js';

export type CheckName = 'snapshot' | 'digest' | 'hash' | 'chain' | 'signature' | 'input' | 'weights' | 'leaderboard';

export interface Check {
  name: CheckName;
  /** null: not checked (say why in `message`). */
  ok: boolean | null;
  message: string;
}

export interface VerifyArgs {
  snapshot: string | Uint8Array;
  input: string | Uint8Array;
  publicKeyPem?: string;
  previousSnapshot?: string | Uint8Array;
}

const utf8 = (bytes: string | Uint8Array, what: string): string => {
  if (typeof bytes === 'string') return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${what} is not valid UTF-8`);
  }
};

/**
 * The forms a snapshot file may take: as the server sends it (compact JSON.stringify), indented
 * by two spaces, or canonical; each optionally followed by a newline. Being this strict means a
 * changed byte is caught even where it would not change the value (a space, `e` for `E`).
 */
function wellFormed(text: string, json: unknown): boolean {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body === JSON.stringify(json) || body === JSON.stringify(json, null, 2) || body === canonicalJson(json);
}

function readSnapshot(bytes: string | Uint8Array, what: string): Snapshot {
  const text = utf8(bytes, what);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  if (!wellFormed(text, json)) throw new Error(`${what} is not in a form the server writes (compact or 2-space JSON): edited?`);
  const parsed = SnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${what}: ${(issue?.path ?? []).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

function describe(d: Difference, body: 'weights' | 'leaderboard', snapshot: Snapshot): string {
  const [first, second, third] = d.path;
  const values = `${show(d.expected)} in the snapshot, ${show(d.actual)} rescored`;
  if (body === 'weights' && (first === 'finalWeights' || first === 'rawWeights') && typeof second === 'string') {
    return `miner ${second}: ${first} ${values}`;
  }
  if (body === 'leaderboard' && first === 'miners' && typeof second === 'number') {
    const hotkey = snapshot.leaderboard.miners[second]?.hotkey ?? `#${second + 1}`;
    return `miner ${hotkey}: ${d.path.slice(2).join('.') || String(third)} ${values}`;
  }
  return `${[body, ...d.path].join('.')}: ${values}`;
}

export function verifySnapshot(args: VerifyArgs): { ok: boolean; checks: Check[] } {
  const checks: Check[] = [];
  const done = () => ({ ok: checks.every((c) => c.ok !== false), checks });
  let snapshot: Snapshot;
  try {
    snapshot = readSnapshot(args.snapshot, 'snapshot');
  } catch (err) {
    checks.push({ name: 'snapshot', ok: false, message: (err as Error).message });
    return done();
  }
  const digest = inputDigest(args.input);
  checks.push(digest === snapshot.inputDigest
    ? { name: 'digest', ok: true, message: `input SHA-256 is the snapshot's inputDigest ${digest}` }
    : { name: 'digest', ok: false, message: `input SHA-256 is ${digest}, the snapshot's inputDigest ${snapshot.inputDigest}` });
  const hash = hashSnapshot(snapshot);
  checks.push(hash === snapshot.hash
    ? { name: 'hash', ok: true, message: `the snapshot's canonical JSON hashes to its hash ${hash}` }
    : { name: 'hash', ok: false, message: `the snapshot's canonical JSON hashes to ${hash}, not to its hash ${snapshot.hash}` });
  checks.push(chain(snapshot, args.previousSnapshot));
  checks.push(signature(snapshot, args.publicKeyPem));

  let rescored: ReturnType<typeof scoreDocument>;
  try {
    const doc = parseDocument(utf8(args.input, 'input'));
    if (doc.competition.id !== snapshot.competitionId) throw new Error(`competition ${doc.competition.id}, snapshot's ${snapshot.competitionId}`);
    if (canonicalJson(doc.competition.excluded.miners) !== canonicalJson([...snapshot.excluded.miners].sort())) {
      throw new Error("excluded miners differ from the snapshot's excluded.miners");
    }
    rescored = scoreDocument(doc, snapshot.stages);
    checks.push({ name: 'input', ok: true, message: `${doc.tasks.length} tasks and ${doc.runs.length} runs of competition ${doc.competition.id}` });
  } catch (err) {
    checks.push({ name: 'input', ok: false, message: (err as Error).message });
    return done();
  }
  for (const body of ['weights', 'leaderboard'] as const) {
    const d = firstDifference(snapshot[body], JSON.parse(JSON.stringify(rescored[body])) as unknown);
    checks.push(d
      ? { name: body, ok: false, message: describe(d, body, snapshot) }
      : { name: body, ok: true, message: `rescoring the input for stages ${snapshot.stages.join(',')} reproduces ${body}` });
  }
  return done();
}

function chain(snapshot: Snapshot, previousText: string | Uint8Array | undefined): Check {
  if (previousText === undefined) {
    const link = snapshot.previousHash ?? 'null (the first snapshot)';
    return { name: 'chain', ok: null, message: `not checked (no --previous); previousHash ${link}` };
  }
  try {
    const previous = readSnapshot(previousText, 'previous snapshot');
    if (hashSnapshot(previous) !== previous.hash) return { name: 'chain', ok: false, message: 'the previous snapshot does not hash to its own hash' };
    if (previous.competitionId !== snapshot.competitionId || previous.seq >= snapshot.seq) {
      return { name: 'chain', ok: false, message: `previous snapshot is ${previous.competitionId} #${previous.seq}, not an earlier one of ${snapshot.competitionId}` };
    }
    return previous.hash === snapshot.previousHash
      ? { name: 'chain', ok: true, message: `previousHash is the hash of snapshot #${previous.seq}` }
      : { name: 'chain', ok: false, message: `previousHash ${snapshot.previousHash ?? 'null'} is not the previous snapshot's hash ${previous.hash}` };
  } catch (err) {
    return { name: 'chain', ok: false, message: (err as Error).message };
  }
}

function signature(snapshot: Snapshot, pem: string | undefined): Check {
  if (pem === undefined) return { name: 'signature', ok: null, message: 'not checked (no --public-key)' };
  try {
    return verifySignature(snapshot.hash, snapshot.signature, pem)
      ? { name: 'signature', ok: true, message: 'Ed25519 signature of the hash verifies with the public key' }
      : { name: 'signature', ok: false, message: 'the Ed25519 signature of the hash does not verify with the public key' };
  } catch (err) {
    return { name: 'signature', ok: false, message: `public key: ${(err as Error).message}` };
  }
}
