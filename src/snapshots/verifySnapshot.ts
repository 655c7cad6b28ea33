// `swe-scoring verify`: every check that a snapshot and its input document allow, each named,
// so a failure says which one: the input digest, the snapshot hash, the chain link to the
// previous snapshot, the signature, the input itself, and the rescored weights and leaderboard.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';
import { firstDifference, type Difference } from './firstDifference.js';
import { RULES_VERSION } from '../scoring/index.js';
import { inputDigest, parseDocument } from './inputDocument.js';
import type { InputDocument } from './inputSchemas.js';
import { readSnapshot, utf8 } from './readSnapshot.js';
import { onChainCheck } from './verifyOnChain.js';
import { scoreDocument } from './scoreDocument.js';
import { hashSnapshot, verifySignature } from './seal.js';
import type { Snapshot } from './snapshotSchema.js';

export type CheckName =
  'snapshot' | 'digest' | 'hash' | 'chain' | 'signature' | 'input' | 'weights' | 'leaderboard' | 'onChain';

export interface Check {
  name: CheckName;
  /** null: not checked (the message says why). */
  ok: boolean | null;
  message: string;
}

export interface VerifyArgs {
  snapshot: string | Uint8Array;
  input: string | Uint8Array;
  publicKeyPem?: string;
  previousSnapshot?: string | Uint8Array;
}

const check = (name: CheckName, ok: boolean, pass: string, fail: string): Check => ({
  name,
  ok,
  message: ok ? pass : fail,
});
const failure = (name: CheckName, err: unknown): Check => ({ name, ok: false, message: (err as Error).message });
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

function describe(d: Difference, body: 'weights' | 'leaderboard', snapshot: Snapshot): string {
  const [first, second] = d.path;
  const values = `${show(d.expected)} in the snapshot, ${show(d.actual)} rescored`;
  if (body === 'weights' && (first === 'finalWeights' || first === 'rawWeights') && typeof second === 'string') {
    return `miner ${second}: ${first} ${values}`;
  }
  if (body === 'leaderboard' && first === 'miners' && typeof second === 'number') {
    const hotkey = snapshot.leaderboard.miners[second]?.hotkey ?? `#${second + 1}`;
    return `miner ${hotkey}: ${d.path.slice(2).join('.') || 'entry'} ${values}`;
  }
  return `${[body, ...d.path].join('.')}: ${values}`;
}

/**
 * The first difference of a body; for weights, a miner's final then raw weight before the rest, so
 * the miners whose pay changed are named rather than the burn weight's last digit they moved.
 */
function difference(expected: unknown, actual: unknown, body: 'weights' | 'leaderboard'): Difference | null {
  if (body === 'weights') {
    const part = (v: unknown, k: string) => (v as Record<string, unknown> | null)?.[k];
    for (const key of ['finalWeights', 'rawWeights']) {
      const d = firstDifference(part(expected, key), part(actual, key), [key]);
      if (d) return d;
    }
  }
  return firstDifference(expected, actual);
}

function chain(snapshot: Snapshot, previousFile: string | Uint8Array | undefined): Check {
  const link = snapshot.previousHash ?? 'null (the first snapshot)';
  if (previousFile === undefined)
    return { name: 'chain', ok: null, message: `not checked (no --previous); previousHash ${link}` };
  if (snapshot.previousHash === null)
    return {
      name: 'chain',
      ok: false,
      message: `snapshot #${snapshot.seq} is the first of its competition (previousHash null), so no snapshot comes before it: verify it without --previous`,
    };
  try {
    const previous = readSnapshot(previousFile, 'previous snapshot');
    if (hashSnapshot(previous) !== previous.hash)
      throw new Error('the previous snapshot does not hash to its own hash');
    // The one just before: an earlier one whose hash it named would hide the snapshots between them.
    if (previous.competitionId !== snapshot.competitionId || previous.seq !== snapshot.seq - 1) {
      throw new Error(
        `the previous snapshot is #${previous.seq} of ${previous.competitionId}, not #${snapshot.seq - 1} of this competition`,
      );
    }
    const ok = previous.hash === snapshot.previousHash;
    return check(
      'chain',
      ok,
      `previousHash is the hash of snapshot #${previous.seq}`,
      `previousHash ${link} is not ${previous.hash}`,
    );
  } catch (err) {
    return failure('chain', err);
  }
}

function signature(snapshot: Snapshot, pem: string | undefined): Check {
  if (pem === undefined) return { name: 'signature', ok: null, message: 'not checked (no --public-key)' };
  try {
    const ok = verifySignature(snapshot.hash, snapshot.signature, pem);
    return check(
      'signature',
      ok,
      'the Ed25519 signature of the hash verifies',
      'the Ed25519 signature of the hash does not verify',
    );
  } catch (err) {
    return failure('signature', new Error(`public key: ${(err as Error).message}`));
  }
}

/**
 * The judge configuration (SPEC 12): the input's hashes to its digest, and the snapshot's settings
 * name that digest; neither has one, or both.
 */
function judgeMatches(settings: Record<string, unknown>, judge: InputDocument['competition']['judge']): void {
  const claimed = settings.judgeDigest ?? null;
  if (!judge) {
    if (claimed !== null)
      throw new Error(`settings.judgeDigest is ${JSON.stringify(claimed)}, the input holds no judge configuration`);
    return;
  }
  const { digest, ...config } = judge;
  const own = createHash('sha256').update(canonicalJson(config), 'utf8').digest('hex');
  if (own !== digest) throw new Error(`the input's judge configuration hashes to ${own}, not to its digest ${digest}`);
  if (claimed !== digest)
    throw new Error(`settings.judgeDigest is ${JSON.stringify(claimed)}, the input's judge digest ${digest}`);
}

/**
 * What the snapshot says of its input must be what the input holds: the competition, the settings
 * scoring reads, both exclusion lists, and the rules this verifier rescores with. The weights
 * come from the input alone, so a claim that contradicts it would otherwise pass unseen.
 */
function claimsMatch(snapshot: Snapshot, competition: InputDocument['competition']): void {
  const { id, excluded } = competition;
  if (id !== snapshot.competitionId)
    throw new Error(`the input is competition ${id}, the snapshot ${snapshot.competitionId}`);
  for (const list of ['miners', 'validators'] as const) {
    if (canonicalJson(excluded[list]) !== canonicalJson([...snapshot.excluded[list]].sort()))
      throw new Error(`the input's excluded ${list} are not the snapshot's excluded.${list}`);
  }
  const settings = (snapshot.settings ?? {}) as Record<string, unknown>;
  for (const key of ['tokenWeights', 'burnRatio', 'judgeVotes', 'finalStages'] as const) {
    if (canonicalJson(settings[key] ?? null) !== canonicalJson(competition[key]))
      throw new Error(
        `settings.${key} is ${canonicalJson(settings[key] ?? null)} in the snapshot, ${canonicalJson(competition[key])} in the input`,
      );
  }
  judgeMatches(settings, competition.judge);
  if (snapshot.rulesVersion !== RULES_VERSION)
    throw new Error(
      `the snapshot was computed under rules ${JSON.stringify(snapshot.rulesVersion)}; this verifier rescores under ${RULES_VERSION}`,
    );
}

export function verifySnapshot(args: VerifyArgs): { ok: boolean; checks: Check[] } {
  const checks: Check[] = [];
  const done = () => ({ ok: checks.every((c) => c.ok !== false), checks });
  let snapshot: Snapshot;
  try {
    snapshot = readSnapshot(args.snapshot, 'snapshot');
  } catch (err) {
    checks.push(failure('snapshot', err));
    return done();
  }
  const digest = inputDigest(args.input);
  const { inputDigest: expected, hash } = snapshot;
  checks.push(
    check(
      'digest',
      digest === expected,
      `input SHA-256 is inputDigest ${digest}`,
      `input SHA-256 is ${digest}, inputDigest ${expected}`,
    ),
  );
  // A number the parser read as ±Infinity (an exponent past a double's range) has no canonical
  // form: the snapshot cannot be the one hashed, and the hash check says where.
  let own: string | Error;
  try {
    own = hashSnapshot(snapshot);
  } catch (err) {
    own = err instanceof Error ? err : new Error(String(err));
  }
  checks.push(
    own instanceof Error
      ? failure('hash', own)
      : check(
          'hash',
          own === hash,
          `canonical JSON hashes to hash ${hash}`,
          `canonical JSON hashes to ${own}, not to hash ${hash}`,
        ),
  );
  checks.push(chain(snapshot, args.previousSnapshot), signature(snapshot, args.publicKeyPem));

  let rescored: ReturnType<typeof scoreDocument>;
  let doc: InputDocument;
  try {
    doc = parseDocument(utf8(args.input, 'input'));
    claimsMatch(snapshot, doc.competition);
    rescored = scoreDocument(doc, snapshot.stages);
    checks.push({
      name: 'input',
      ok: true,
      message: `${doc.tasks.length} tasks and ${doc.runs.length} runs of competition ${doc.competition.id}, under the snapshot's settings, exclusions and rules`,
    });
  } catch (err) {
    checks.push(failure('input', err));
    return done();
  }
  for (const body of ['weights', 'leaderboard'] as const) {
    const d = difference(snapshot[body], JSON.parse(JSON.stringify(rescored[body])) as unknown, body);
    const pass = `rescoring the input for stages ${snapshot.stages.join(',')} reproduces ${body}`;
    checks.push(
      d ? { name: body, ok: false, message: describe(d, body, snapshot) } : { name: body, ok: true, message: pass },
    );
  }
  checks.push(onChainCheck(snapshot, doc.competition.metagraph, rescored.chain));
  return done();
}
