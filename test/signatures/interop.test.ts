// Signatures made by other sr25519 implementations verify here, and ours verify there.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { sr25519KeypairFromSeed, sr25519Sign, sr25519Verify, waitReady } from '@polkadot/wasm-crypto';
import { verify } from '@scure/sr25519';
import { beforeAll, describe, expect, it } from 'vitest';
import { keypairFromSeed, signRequest } from '../../src/client/sign.js';
import { verifyEpistula } from '../../src/signatures/epistula.js';
import { epistulaMessage } from '../../src/signatures/message.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { ALICE, BODY, NOW, SERVER, UUID, signed } from './fixtures.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
/** ink's Sr25519VerifyFailed: false, or a key/point that does not even decode (scure throws for those). */
const verifies = (m: Uint8Array, s: Uint8Array, k: Uint8Array) => {
  try {
    return verify(m, s, k);
  } catch {
    return false;
  }
};

describe('published vectors', () => {
  // use-ink/ink, integration-tests/sr25519-verification/lib.rs, commit 3519e2c882932c4e4034c8c487107389756e7df2,
  // test_sr25519_verify_valid: Alice's signature (made with polkadot-js, i.e. Rust schnorrkel, context
  // "substrate") of "<Bytes>0x46fb7408d4f285228f4af516ea25851b</Bytes>", which ink checks with schnorrkel.
  const INK_MESSAGE = new TextEncoder().encode('<Bytes>0x46fb7408d4f285228f4af516ea25851b</Bytes>');
  const INK_SIGNATURE = bytes(
    '0a7da2b631704cdcfe93c740e41217b9ac667a0c8755d8da1a8232db527f487c87e780d2edc1896aeb6b1bef0bc7c38d9df2135b633eab8bfb1777e82fad3a8f',
  );
  const ALICE_KEY = 'd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d';

  it("ink!'s sr25519 vector: Alice's signature verifies; the off-by-one key, message and signature do not", () => {
    expect(verifies(INK_MESSAGE, INK_SIGNATURE, bytes(ALICE_KEY))).toBe(true);
    const offByOne = (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 0 ? x + 1 : x));
    expect(verifies(INK_MESSAGE, INK_SIGNATURE, offByOne(bytes(ALICE_KEY)))).toBe(false);
    expect(verifies(offByOne(INK_MESSAGE), INK_SIGNATURE, bytes(ALICE_KEY))).toBe(false);
    expect(verifies(INK_MESSAGE, offByOne(INK_SIGNATURE), bytes(ALICE_KEY))).toBe(false);
  });

  // paritytech/polkadot-sdk, substrate/primitives/core/src/sr25519.rs, commit 7718444f589ab5d3519e6fd663d7ae00fa2f0cc7:
  // sr_test_vector_should_work and seeded_pair_should_work (Pair::from_seed, schnorrkel's Ed25519 expansion);
  // Alice's seed is what `subkey inspect //Alice` prints, her key is derive_hard_known_pair_should_work's.
  it.each([
    [
      '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
      '44a996beb1eef7bdcab976ab6d2ca26104834164ecf28fb375600576fcc6eb0f',
    ],
    [
      hex(new TextEncoder().encode('12345678901234567890123456789012')),
      '741c08a06f41c596608f6774259bd9043304adfa5d3eea62760bd9be97634d63',
    ],
    ['e5be9a5092b81bca64be81d212e7f2f9eba183bb7a90954f7b76361f6edb5c0a', ALICE_KEY],
  ])("keypairFromSeed(%s) has sp-core's public key %s", (seed, publicKey) => {
    expect(hex(keypairFromSeed(seed).publicKey)).toBe(publicKey);
  });

  it("Alice's keypair has her well-known address", () => {
    expect(ALICE.address).toBe('5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY');
  });
});

describe('Rust schnorrkel (@polkadot/wasm-crypto) both ways', () => {
  beforeAll(async () => {
    await waitReady();
  });
  const SEED = bytes('e5be9a5092b81bca64be81d212e7f2f9eba183bb7a90954f7b76361f6edb5c0a');

  it('derives the same public key from a seed', () => {
    expect(hex(sr25519KeypairFromSeed(SEED).subarray(64))).toBe(hex(ALICE.publicKey));
  });

  it('a request signed by schnorrkel is accepted by our verifier', () => {
    const pair = sr25519KeypairFromSeed(SEED);
    const timestamp = String(NOW);
    const message = epistulaMessage(
      bytesToHex(sha256(new TextEncoder().encode(BODY))),
      UUID,
      timestamp,
      SERVER.address,
    );
    const signature = sr25519Sign(pair.subarray(64), pair.subarray(0, 64), new TextEncoder().encode(message));
    const headers = {
      'epistula-version': '2',
      'epistula-timestamp': timestamp,
      'epistula-uuid': UUID,
      'epistula-signed-by': encodeSs58(pair.subarray(64)),
      'epistula-signed-for': SERVER.address,
      'epistula-request-signature': `0x${hex(signature)}`,
    };
    expect(verifyEpistula({ headers, body: BODY, now: NOW }, { serverAddress: SERVER.address })).toMatchObject({
      ok: true,
      hotkey: ALICE.address,
    });
    expect(verifyEpistula({ headers, body: `${BODY}x`, now: NOW }, { serverAddress: SERVER.address }).ok).toBe(false);
  });

  it('a request signed by our helper verifies with schnorrkel', () => {
    const headers = signRequest({ key: ALICE, body: BODY, now: NOW, uuid: UUID, signedFor: ALICE.address });
    const message = `${bytesToHex(sha256(new TextEncoder().encode(BODY)))}.${UUID}.${NOW}.${ALICE.address}`;
    const signature = bytes(headers['Epistula-Request-Signature']!.slice(2));
    expect(sr25519Verify(signature, new TextEncoder().encode(message), ALICE.publicKey)).toBe(true);
    expect(sr25519Verify(signature, new TextEncoder().encode(`${message}x`), ALICE.publicKey)).toBe(false);
  });

  it('the verifier runs with schnorrkel as its sr25519 backend too (sr25519Verify option)', () => {
    const options = {
      serverAddress: SERVER.address,
      sr25519Verify: (m: Uint8Array, sig: Uint8Array, k: Uint8Array) => sr25519Verify(sig, m, k),
    };
    expect(verifyEpistula({ headers: signed(), body: BODY, now: NOW }, options).ok).toBe(true);
    expect(verifyEpistula({ headers: signed(), body: `${BODY} `, now: NOW }, options)).toMatchObject({
      ok: false,
      reason: 'signature-invalid',
    });
  });
});
