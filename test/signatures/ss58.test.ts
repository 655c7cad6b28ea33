import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import * as nodeCrypto from 'node:crypto';
import { decodeSs58, encodeSs58, ss58Hasher, ss58ToPublicKey, Ss58Error } from '../../src/signatures/ss58.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ALICE = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
const ALICE_KEY = 'd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d';

// Addresses made by Substrate's `subkey`, from polkascan/py-scale-codec test/test_ss58.py
// (commit c629e1277272adaa4f0f3f0f94675ac14722e2ee), covering one- and two-byte prefixes.
const SUBKEY_PAIRS: [string, string, number][] = [
  [
    '5EU9mjvZdLRGyDFiBHjxrxvQuaaBpeTZCguhxM3yMX8cpZ2u',
    '6a5a5957ce778c174c02c151e7c4917ac127b33ad8485f579f830fc15d31bc5a',
    42,
  ],
  [
    'yGF4JP7q5AK46d1FPCEm9sYQ4KooSjHMpyVAjLnsCSWVafPnf',
    '66cd6cf085627d6c85af1aaf2bd10cf843033e929b4e3b1c2ba8e4aa46fe111b',
    255,
  ],
  [
    'yGDYxQatQwuxqT39Zs4LtcTnpzE12vXb7ZJ6xpdiHv6gTu1hF',
    '242fd5a078ac6b7c3c2531e9bcf1314343782aeb58e7bc6880794589e701db55',
    255,
  ],
  [
    'mHm8k9Emsvyfp3piCauSH684iA6NakctF8dySQcX94GDdrJrE',
    '44d5a3ac156335ea99d33a83c57c7146c40c8e2260a8a4adf4e7a86256454651',
    4242,
  ],
  [
    'r6Gr4gaMP8TsjhFbqvZhv3YvnasugLiRJpzpRHifsqqG18UXa',
    '88f01441682a17b52d6ae12d1a5670cf675fd254897efabaa5069eb3a701ab73',
    14269,
  ],
];

describe('ss58', () => {
  it('decodes the development key Alice to its known public key (prefix 42)', () => {
    const d = decodeSs58(ALICE);
    expect(d).toMatchObject({ ok: true, prefix: 42 });
    expect(d.ok && hex(d.publicKey)).toBe(ALICE_KEY);
    expect(encodeSs58(Buffer.from(ALICE_KEY, 'hex'))).toBe(ALICE);
  });

  it.each(SUBKEY_PAIRS)('decodes and re-encodes subkey address %s (key %s, prefix %i)', (address, key, prefix) => {
    const d = decodeSs58(address);
    expect(d).toMatchObject({ ok: true, prefix });
    expect(d.ok && hex(d.publicKey)).toBe(key);
    expect(encodeSs58(Buffer.from(key, 'hex'), prefix)).toBe(address);
  });

  it('every prefix 0..16383 round-trips', () => {
    const key = Buffer.from(ALICE_KEY, 'hex');
    for (let prefix = 0; prefix < 16384; prefix += prefix < 130 ? 1 : 97) {
      const d = decodeSs58(encodeSs58(key, prefix));
      expect(d.ok && d.prefix).toBe(prefix);
    }
  });

  it('refuses a checksum-corrupted address', () => {
    const bytes = base58.decode(ALICE);
    bytes[bytes.length - 1]! ^= 1;
    expect(decodeSs58(base58.encode(bytes))).toMatchObject({ ok: false, reason: 'bad-checksum' });
    // a changed key byte breaks the checksum too
    const key = base58.decode(ALICE);
    key[5]! ^= 0x80;
    expect(decodeSs58(base58.encode(key))).toMatchObject({ ok: false, reason: 'bad-checksum' });
  });

  it.each([
    ['', 'bad-length'],
    ['5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQ', 'bad-length'],
    ['0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d', 'bad-length'],
    ['5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKut0Y', 'not-base58'],
    ['incorrect_string', 'not-base58'],
    ['KWCv1L3QX9LDPwY4VzvLmarEmXjVJidUzZcinvVnmxAJJCBou', 'bad-prefix'], // a 33-byte ecdsa key: 36 bytes, yet a 1-byte prefix
    [base58.encode(new Uint8Array(35).fill(200)), 'bad-prefix'],
    ['x'.repeat(10_000), 'bad-length'],
  ])('refuses %j (%s), never throwing', (address, reason) => {
    expect(decodeSs58(address)).toMatchObject({ ok: false, reason });
  });

  it('ss58ToPublicKey throws a typed error; encodeSs58 refuses bad input', () => {
    expect(() => ss58ToPublicKey('nope')).toThrow(Ss58Error);
    expect(ss58ToPublicKey(ALICE)).toHaveLength(32);
    expect(() => encodeSs58(new Uint8Array(31))).toThrow(Ss58Error);
    expect(() => encodeSs58(new Uint8Array(32), 16384)).toThrow(Ss58Error);
  });

  it("node:crypto's blake2b-512 and noble's (a browser's) give the same hash, and subkey's checksums", () => {
    const [native, noble] = [ss58Hasher(nodeCrypto), ss58Hasher(null)];
    for (let n = 0; n < 200; n++) {
      const payload = nodeCrypto.randomBytes(n % 2 === 0 ? 33 : 34);
      expect(hex(native(payload))).toBe(hex(noble(payload)));
    }
    for (const [address] of SUBKEY_PAIRS) {
      const bytes = base58.decode(address);
      const payload = bytes.subarray(0, bytes.length - 2);
      for (const hash of [native, noble]) expect(hex(hash(payload).subarray(0, 2))).toBe(hex(bytes.subarray(-2)));
    }
  });
});
