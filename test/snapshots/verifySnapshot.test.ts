import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashSnapshot, sealSnapshot, signHash, verifySignature } from '../../src/snapshots/seal.js';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { sample } from './sample.js';
import { keys, otherPublicKeyPem, publicKeyPem, snapshotOf } from './snapshotKit.js';

const { snapshot, text, input } = snapshotOf(sample);
/** Whether two JSON texts hold the same values (neither need be valid JSON). */
function sameValues(a: Uint8Array, b: Uint8Array): boolean {
  try {
    return (
      canonicalJson(JSON.parse(Buffer.from(a).toString('utf8'))) ===
      canonicalJson(JSON.parse(Buffer.from(b).toString('utf8')))
    );
  } catch {
    return false;
  }
}
const failed = (r: ReturnType<typeof verifySnapshot>) => r.checks.filter((c) => c.ok === false).map((c) => c.name);

describe('seal', () => {
  it('hashes the canonical JSON without hash and signature, whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(snapshot).reverse());
    expect(hashSnapshot(reordered)).toBe(snapshot.hash);
    expect(hashSnapshot({ ...snapshot, hash: 'x', signature: 'y' })).toBe(snapshot.hash);
    expect(hashSnapshot({ ...snapshot, seq: 2 })).not.toBe(snapshot.hash);
  });

  it('signs the 64 hex digits of the hash with Ed25519, checked by the public key only', () => {
    const sig = signHash(snapshot.hash, keys.privateKey);
    expect(Buffer.from(sig, 'base64')).toHaveLength(64);
    expect(verifySignature(snapshot.hash, sig, publicKeyPem)).toBe(true);
    expect(verifySignature(snapshot.hash, sig, otherPublicKeyPem)).toBe(false);
    expect(verifySignature(hashSnapshot({ ...snapshot, seq: 9 }), sig, publicKeyPem)).toBe(false);
  });
});

describe('verifySnapshot', () => {
  it('passes a sealed snapshot and its input, every check named', () => {
    const r = verifySnapshot({ snapshot: text, input, publicKeyPem });
    expect(r.checks.map((c) => [c.name, c.ok])).toEqual([
      ['digest', true],
      ['hash', true],
      ['chain', null],
      ['signature', true],
      ['input', true],
      ['weights', true],
      ['leaderboard', true],
      // Taken with no metagraph recorded: nothing on chain to check, and nothing fails.
      ['onChain', null],
    ]);
    expect(r.ok).toBe(true);
  });

  it('fails the signature with the wrong key, and says so', () => {
    const r = verifySnapshot({ snapshot: text, input, publicKeyPem: otherPublicKeyPem });
    expect(failed(r)).toEqual(['signature']);
    expect(
      verifySnapshot({ snapshot: text, input, publicKeyPem: 'not a key' }).checks.find((c) => c.name === 'signature')
        ?.message,
    ).toMatch(/public key/);
  });

  it('checks the chain link against the previous snapshot', () => {
    const next = snapshotOf(sample, { seq: 2, previousHash: snapshot.hash });
    expect(
      verifySnapshot({ snapshot: next.text, input, previousSnapshot: text }).checks.find((c) => c.name === 'chain')?.ok,
    ).toBe(true);
    const broken = snapshotOf(sample, { seq: 2, previousHash: 'a'.repeat(64) });
    expect(failed(verifySnapshot({ snapshot: broken.text, input, previousSnapshot: text }))).toEqual(['chain']);
  });

  it('says that the first snapshot has no previous one when --previous is given for it', () => {
    const other = snapshotOf(sample, { seq: 2, previousHash: snapshot.hash });
    const r = verifySnapshot({ snapshot: text, input, previousSnapshot: other.text });
    expect(failed(r)).toEqual(['chain']);
    expect(r.checks.find((c) => c.name === 'chain')?.message).toBe(
      `snapshot #${snapshot.seq} is the first of its competition (previousHash null), so no snapshot comes before it: verify it without --previous`,
    );
  });

  it('fails a chain link that skips snapshots, though the hash it names is right', () => {
    const later = snapshotOf(sample, { seq: 7, previousHash: snapshot.hash });
    const r = verifySnapshot({ snapshot: later.text, input, previousSnapshot: text, publicKeyPem });
    expect(failed(r)).toEqual(['chain']);
    expect(r.checks.find((c) => c.name === 'chain')?.message).toMatch(/#1 of .*, not #6/);
  });

  it.each([
    [
      'settings.burnRatio',
      (u: Record<string, unknown>) => ({ ...u, settings: { ...(u.settings as object), burnRatio: 0.5 } }),
    ],
    [
      'settings.tokenWeights',
      (u: Record<string, unknown>) => ({
        ...u,
        settings: { ...(u.settings as object), tokenWeights: { input: 1, cachedInput: 0, output: 99 } },
      }),
    ],
    [
      'excluded validators',
      (u: Record<string, unknown>) => ({ ...u, excluded: { ...(u.excluded as object), validators: ['ghost'] } }),
    ],
    ['rules', (u: Record<string, unknown>) => ({ ...u, rulesVersion: 'other-rules/7' })],
  ])('fails a signed snapshot whose %s contradict its input, though the weights rescore', (what, change) => {
    // Only the key's holder can seal such a snapshot: the party a verifier checks.
    const { hash: _h, signature: _s, ...unsigned } = snapshot;
    const forged = sealSnapshot(change(unsigned as Record<string, unknown>), keys.privateKey);
    const r = verifySnapshot({ snapshot: JSON.stringify(forged), input, publicKeyPem });
    expect(failed(r)).toEqual(['input']);
    expect(r.checks.find((c) => c.name === 'input')?.message).toContain(what);
  });

  it('names the miner whose weight differs when a re-sealed snapshot carries other weights', () => {
    const { hash: _h, signature: _s, ...unsigned } = snapshot;
    const weights = { ...(unsigned.weights as Record<string, unknown>), finalWeights: { m1: 0.5 } };
    const forged = { ...unsigned, weights, hash: hashSnapshot({ ...unsigned, weights }), signature: 'x' };
    const r = verifySnapshot({ snapshot: JSON.stringify(forged), input });
    expect(failed(r)).toEqual(['weights']);
    expect(r.checks.find((c) => c.name === 'weights')?.message).toMatch(
      /^miner m1: finalWeights 0.5 in the snapshot, 0.75 rescored/,
    );
  });

  it("names a miner whose weight differs before the burn weight's last digits that moved with it", () => {
    const { hash: _h, signature: _s, ...unsigned } = snapshot;
    const w = unsigned.weights as { finalWeights: Record<string, number>; burnWeight: number };
    const weights = { ...w, finalWeights: { ...w.finalWeights, m1: 0.7 }, burnWeight: w.burnWeight + 1e-16 };
    const forged = { ...unsigned, weights, hash: hashSnapshot({ ...unsigned, weights }), signature: 'x' };
    const r = verifySnapshot({ snapshot: JSON.stringify(forged), input });
    expect(r.checks.find((c) => c.name === 'weights')?.message).toMatch(/^miner m1: finalWeights 0.7 in the snapshot/);
  });

  describe.each([
    ['compact', (v: unknown) => JSON.stringify(v)],
    ['2-space', (v: unknown) => `${JSON.stringify(v, null, 2)}\n`],
    ['4-space', (v: unknown) => JSON.stringify(v, null, 4)],
    ['tab-indented with CRLF', (v: unknown) => JSON.stringify(v, null, '\t').replaceAll('\n', '\r\n')],
    ['canonical', (v: unknown) => canonicalJson(v)],
  ])('a snapshot written %s', (_form, write) => {
    it('verifies: the hash is over values, not formatting', () => {
      const r = verifySnapshot({ snapshot: write(snapshot), input, publicKeyPem });
      expect(failed(r)).toEqual([]);
      expect(r.checks.find((c) => c.name === 'hash')?.ok).toBe(true);
    });

    it('fails the hash, named, when one weight is changed', () => {
      const w = snapshot.weights as { finalWeights: Record<string, number> };
      const weights = { ...w, finalWeights: { ...w.finalWeights, m1: 0.7 } };
      const r = verifySnapshot({ snapshot: write({ ...snapshot, weights }), input, publicKeyPem });
      expect(failed(r)).toEqual(['hash', 'weights']);
      expect(r.checks.find((c) => c.name === 'weights')?.message).toMatch(
        /^miner m1: finalWeights 0.7 in the snapshot/,
      );
    });
  });

  it('fails the hash, named, for a number past a double (read as Infinity), rather than throwing', () => {
    const score = /"normalizedScore":(0\.\d+)/.exec(text)![1]!;
    const huge = text.replace(
      `"normalizedScore":${score}`,
      `"normalizedScore":${score.slice(0, 4)}e5${score.slice(5)}`,
    );
    const r = verifySnapshot({ snapshot: huge, input, publicKeyPem });
    expect(r.ok).toBe(false);
    expect(r.checks.find((c) => c.name === 'hash')?.message).toMatch(/normalizedScore is Infinity, not a JSON number/);
  });

  it('catches a one-byte change at every position of the snapshot and of the input', () => {
    const bytes = { snapshot: Buffer.from(text), input: Buffer.from(input) };
    for (const which of ['snapshot', 'input'] as const) {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 255 }), (delta) => {
          for (let i = 0; i < bytes[which].length; i++) {
            const changed = Buffer.from(bytes[which]);
            changed[i] = ((changed[i] ?? 0) + delta) % 256;
            const r = verifySnapshot({ snapshot: bytes.snapshot, input: bytes.input, publicKeyPem, [which]: changed });
            // A snapshot byte whose change leaves every value alone (`e` for `E` in an exponent) still
            // verifies: what is signed is the values. Every other change must fail.
            const same = which === 'snapshot' && sameValues(changed, bytes.snapshot);
            if (r.ok !== same)
              throw new Error(`${which} byte ${i} changed by ${delta}: ok ${r.ok}, values unchanged ${same}`);
          }
        }),
        { numRuns: 1 },
      );
    }
  });
});
