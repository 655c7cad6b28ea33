// Hash and signature of a snapshot (API.md "Snapshots"), shared by the server that seals them
// and the command line that verifies them. `hash` is the SHA-256 (lower-case hex) of the
// snapshot's canonical JSON (canonicalJson.ts) without its `hash` and `signature` members;
// `signature` is Ed25519 over the 64 ASCII hex digits of `hash`, in standard base64.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonicalJson.js';

/** The key a server seals its snapshots with (src/signingKey.ts reads or generates it). */
export interface Signer {
  privateKey: KeyObject;
  /** SPKI PEM, as GET /v1/identity publishes it. */
  publicKeyPem: string;
}

/** The snapshot without the members that the hash and the signature themselves fill in. */
export function unsealed(snapshot: Record<string, unknown>): Record<string, unknown> {
  const { hash: _hash, signature: _signature, ...rest } = snapshot;
  return rest;
}

/** SHA-256 hex of the canonical JSON of `snapshot`, leaving out `hash` and `signature` if present. */
export function hashSnapshot(snapshot: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson(unsealed(snapshot)), 'utf8')
    .digest('hex');
}

/** Ed25519 signature (standard base64) of the hash's 64 ASCII hex digits. */
export function signHash(hash: string, privateKey: KeyObject | string): string {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  return sign(null, Buffer.from(hash, 'ascii'), key).toString('base64');
}

/** Reads an Ed25519 public key in SPKI PEM; throws with a plain message otherwise. */
export function publicKeyFromPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem', type: 'spki' });
  } catch {
    throw new Error('not a public key in SPKI PEM form');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType ?? 'unknown'} key, not ed25519`);
  return key;
}

/** True when `signature` (standard base64) is the key's Ed25519 signature of `hash`. */
export function verifySignature(hash: string, signature: string, publicKey: KeyObject | string): boolean {
  const key = typeof publicKey === 'string' ? publicKeyFromPem(publicKey) : publicKey;
  // Only the one canonical spelling: Node's decoder ignores stray characters and unused bits.
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.toString('base64') !== signature) return false;
  return verify(null, Buffer.from(hash, 'ascii'), key, bytes);
}

/** The snapshot with its `hash` and `signature` filled in. */
export function sealSnapshot<T extends Record<string, unknown>>(
  unsigned: T,
  privateKey: KeyObject | string,
): T & { hash: string; signature: string } {
  const hash = hashSnapshot(unsigned);
  return { ...unsigned, hash, signature: signHash(hash, privateKey) };
}
