// sr25519 keypairs for signing requests, from the material a Bittensor wallet holds.
import { hexToBytes } from '@noble/hashes/utils.js';
import { getPublicKey, secretFromSeed } from '@scure/sr25519';
import { encodeSs58 } from '../signatures/ss58.js';

export interface EpistulaKeypair {
  /** 64 bytes: the secret scalar and the signing nonce (schnorrkel `SecretKey::to_bytes()`). */
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** The ss58 address (prefix 42, as Bittensor uses): the validator's `hotkey`. */
  address: string;
}

function bytesOf(input: Uint8Array | string, length: number, what: string): Uint8Array {
  const bytes = typeof input === 'string' ? hexToBytes(input.replace(/^0x/i, '')) : input;
  if (!(bytes instanceof Uint8Array) || bytes.length !== length)
    throw new RangeError(`${what} must be ${length} bytes (or ${length * 2} hex digits)`);
  return bytes;
}

/**
 * From a 32-byte mini-secret (hex with or without 0x, or bytes): the wallet's `secretSeed`, as
 * Bittensor's `Keypair.create_from_seed` and schnorrkel's `MiniSecretKey::expand` (Ed25519 mode) use it.
 */
export function keypairFromSeed(seed: Uint8Array | string): EpistulaKeypair {
  return keypairFromSecretKey(secretFromSeed(bytesOf(seed, 32, 'a seed')));
}

/** From a 64-byte secret key (scalar || nonce), as `keypairFromSeed` or py-sr25519-bindings' `pair_from_seed` give it. */
export function keypairFromSecretKey(secretKey: Uint8Array | string): EpistulaKeypair {
  const sk = Uint8Array.from(bytesOf(secretKey, 64, 'a secret key'));
  const publicKey = getPublicKey(sk);
  return { secretKey: sk, publicKey, address: encodeSs58(publicKey, 42) };
}
