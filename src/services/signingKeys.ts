// The history of the snapshot-signing key. The key lives in a file beside the database, not in it
// (src/signingKey.ts): a database restored without its key would have its next snapshots signed by
// a new one. Every key the server starts with is recorded, in order, with where it took over in
// each competition's chain, so GET /v1/identity names the key of every snapshot and `verify
// --identity` picks it. A start with another key than the last one recorded, over a database that
// holds snapshots, is refused unless the operator says the change is meant; it is then audited.
import { createHash, createPublicKey } from 'node:crypto';
import type { SigningKeyRow } from '../db/snapshots.js';
import type { Store } from '../db/contract.js';
import { verifySignature, type Signer } from '../snapshots/seal.js';

/** SHA-256, lower-case hex, of the key's SPKI DER. */
export const keyFingerprint = (publicKeyPem: string): string =>
  createHash('sha256')
    .update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }))
    .digest('hex');

/** A start with a key other than the last one used: the operator must say the change is meant. */
export class SigningKeyChanged extends Error {}

export interface KeyRange {
  competitionId: string;
  firstSeq: number;
  lastSeq: number;
}

/**
 * The snapshots each recorded key signed, per competition: from the seq where it took over to the
 * one before the next key took over (or the latest, for the last key). Pure.
 */
export function keyRanges(
  keys: readonly Pick<SigningKeyRow, 'starts'>[],
  latest: readonly { competitionId: string; seq: number }[],
): KeyRange[][] {
  const starts = keys.map((k) => JSON.parse(k.starts) as Record<string, number>);
  return starts.map((from, i) => {
    const next = starts[i + 1];
    const ranges: KeyRange[] = [];
    for (const { competitionId, seq } of latest) {
      const firstSeq = from[competitionId] ?? 1;
      const lastSeq = next ? (next[competitionId] ?? 1) - 1 : seq;
      if (lastSeq >= firstSeq) ranges.push({ competitionId, firstSeq, lastSeq: Math.min(lastSeq, seq) });
    }
    return ranges;
  });
}

/** Whether `signer` signed the latest snapshot of every competition that has one. */
async function signedEveryLatest(store: Store, signer: Signer, competitionIds: string[]): Promise<boolean> {
  for (const id of competitionIds) {
    const latest = await store.snapshots.latest(id);
    if (!latest) continue;
    const { hash, signature } = JSON.parse(latest.document) as { hash: string; signature: string };
    if (!verifySignature(hash, signature, signer.publicKeyPem)) return false;
  }
  return true;
}

/**
 * Records the key this server starts with. The same key as the last one recorded: nothing to do.
 * A first key (or a database from before the history whose latest snapshots this key signed):
 * recorded as having signed from the start. Another key over a database without snapshots:
 * recorded. Another key over snapshots: SigningKeyChanged, unless `acceptNew`; then recorded from
 * each competition's next snapshot on, and audited.
 */
export async function recordStartKey(
  store: Store,
  signer: Signer,
  options: { acceptNew: boolean; file: string },
): Promise<{ outcome: 'same' | 'recorded' | 'changed'; fingerprint: string; previous: string | null }> {
  const fingerprint = keyFingerprint(signer.publicKeyPem);
  return store.transaction(async (tx) => {
    const last = (await tx.snapshots.signingKeys()).at(-1);
    if (last?.fingerprint === fingerprint) return { outcome: 'same' as const, fingerprint, previous: null };
    const latest = await tx.snapshots.latestSeqs();
    const record = (starts: Record<string, number>) =>
      tx.snapshots.recordSigningKey({ fingerprint, publicKey: signer.publicKeyPem, starts: JSON.stringify(starts) });
    if (
      latest.length === 0 ||
      (!last &&
        (await signedEveryLatest(
          tx,
          signer,
          latest.map((l) => l.competitionId),
        )))
    ) {
      await record({});
      return { outcome: 'recorded' as const, fingerprint, previous: last?.fingerprint ?? null };
    }
    if (!options.acceptNew)
      throw new SigningKeyChanged(
        `the snapshot-signing key in ${options.file} (fingerprint ${fingerprint.slice(0, 16)}…) is not the one ` +
          `that signed this database's snapshots${last ? ` (${last.fingerprint.slice(0, 16)}…)` : ''}: put that key ` +
          'at this path (SCORING_SIGNING_KEY_PATH), or start with --new-signing-key ' +
          '(SCORING_ACCEPT_NEW_SIGNING_KEY=true) to sign the next snapshots with this one',
      );
    const starts = Object.fromEntries(latest.map((l) => [l.competitionId, l.seq + 1]));
    await record(starts);
    await tx.audit.append({
      actor: { kind: 'admin', id: null },
      action: 'signingKey.change',
      competitionId: null,
      target: fingerprint,
      summary: { previous: last?.fingerprint ?? null, file: options.file, firstSeqs: starts },
    });
    return { outcome: 'changed' as const, fingerprint, previous: last?.fingerprint ?? null };
  });
}

/** GET /v1/identity's list of keys, oldest first, the one this server signs with in force. */
export async function signingKeyHistory(store: Store, signer: Signer) {
  const [keys, latest] = await Promise.all([store.snapshots.signingKeys(), store.snapshots.latestSeqs()]);
  const own = keyFingerprint(signer.publicKeyPem);
  const ranges = keyRanges(keys, latest);
  let inForce = -1;
  keys.forEach((k, i) => {
    if (k.fingerprint === own) inForce = i;
  });
  return keys.map((k, i) => ({
    fingerprint: k.fingerprint,
    publicKey: k.publicKey,
    recordedAt: k.recordedAt,
    inForce: i === inForce,
    snapshots: ranges[i]!,
  }));
}
