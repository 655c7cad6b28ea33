// SS58 addresses of 32-byte public keys (sr25519 hotkeys): base58 of
// prefix || key || blake2b-512("SS58PRE" || prefix || key)[0..2].
// Prefixes 0..63 take one byte; 64..16383 take two (the "full" format of Substrate's sp-core).
import { blake2b } from '@noble/hashes/blake2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';

export type Ss58Failure = 'not-base58' | 'bad-length' | 'bad-prefix' | 'bad-checksum';
export type Ss58Decoded =
  { ok: true; publicKey: Uint8Array; prefix: number } | { ok: false; reason: Ss58Failure; message: string };

/** Thrown by `ss58ToPublicKey` (configuration) and `encodeSs58` (programming errors), never by `decodeSs58`. */
export class Ss58Error extends Error {
  constructor(
    readonly reason: Ss58Failure,
    message: string,
  ) {
    super(message);
    this.name = 'Ss58Error';
  }
}

const PRE = utf8ToBytes('SS58PRE');
const KEY_BYTES = 32;
const CHECKSUM_BYTES = 2;
/** Longest address of a 32-byte key is 2 + 32 + 2 bytes, 50 base58 characters at most. */
const MAX_CHARS = 64;

type NodeCrypto = typeof import('node:crypto');

/**
 * blake2b-512("SS58PRE" || payload): by OpenSSL through `node:crypto` when given (about 2 µs an
 * address against 5 to 7 µs for noble's; a metagraph of 65,536 neurons decodes every hotkey), else
 * by noble's JavaScript (a browser bundle of the client, which derives addresses too).
 */
export function ss58Hasher(nodeCrypto: NodeCrypto | null): (payload: Uint8Array) => Uint8Array {
  if (nodeCrypto) return (payload) => nodeCrypto.createHash('blake2b512').update(PRE).update(payload).digest();
  return (payload) => blake2b(concatBytes(PRE, payload), { dkLen: 64 });
}

const hash = ss58Hasher(globalThis.process?.getBuiltinModule?.('node:crypto') ?? null);
const checksum = (payload: Uint8Array) => hash(payload).subarray(0, CHECKSUM_BYTES);
const fail = (reason: Ss58Failure, message: string): Ss58Decoded => ({ ok: false, reason, message });

export function decodeSs58(address: string): Ss58Decoded {
  if (typeof address !== 'string' || address.length === 0 || address.length > MAX_CHARS) {
    return fail('bad-length', 'an ss58 address has 46 to 50 base58 characters');
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return fail('not-base58', 'not a base58 string');
  }
  const prefixBytes = bytes.length - KEY_BYTES - CHECKSUM_BYTES;
  if (prefixBytes !== 1 && prefixBytes !== 2) {
    return fail(
      'bad-length',
      `decodes to ${bytes.length} bytes, not a ${KEY_BYTES}-byte public key with its prefix and checksum`,
    );
  }
  const first = bytes[0]!;
  if (first >= 128 || first < 64 !== (prefixBytes === 1)) {
    return fail('bad-prefix', `the first byte (${first}) names no ${prefixBytes}-byte ss58 prefix`);
  }
  const second = bytes[1]!;
  const prefix = prefixBytes === 1 ? first : (((first << 2) | (second >> 6)) & 0xff) | ((second & 0x3f) << 8);
  const payload = bytes.subarray(0, prefixBytes + KEY_BYTES);
  const expected = checksum(payload);
  const given = bytes.subarray(prefixBytes + KEY_BYTES);
  if (expected[0] !== given[0] || expected[1] !== given[1])
    return fail('bad-checksum', 'the ss58 checksum does not match');
  return { ok: true, publicKey: bytes.slice(prefixBytes, prefixBytes + KEY_BYTES), prefix };
}

/** The public key of an address, or an `Ss58Error` (for configuration such as the server's own address). */
export function ss58ToPublicKey(address: string): Uint8Array {
  const d = decodeSs58(address);
  if (!d.ok) throw new Ss58Error(d.reason, `${JSON.stringify(address)} is not an ss58 address: ${d.message}`);
  return d.publicKey;
}

/** Encodes a 32-byte public key; prefix 42 is the generic Substrate format Bittensor uses. */
export function encodeSs58(publicKey: Uint8Array, prefix = 42): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== KEY_BYTES)
    throw new Ss58Error('bad-length', 'a public key has 32 bytes');
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 16383)
    throw new Ss58Error('bad-prefix', 'an ss58 prefix is 0..16383');
  const head =
    prefix < 64
      ? Uint8Array.of(prefix)
      : Uint8Array.of(((prefix & 0xfc) >> 2) | 0x40, (prefix >> 8) | ((prefix & 0x03) << 6));
  const payload = concatBytes(head, publicKey);
  return base58.encode(concatBytes(payload, checksum(payload)));
}
