// Shared keys and a signed request for the signature tests.
import { keypairFromSeed, signRequest } from '../../src/client/sign.js';
import type { HeaderBag } from '../../src/signatures/headers.js';

/** Substrate's development keys //Alice and //Bob: their mini-secrets as `subkey inspect` prints them. */
export const ALICE = keypairFromSeed('0xe5be9a5092b81bca64be81d212e7f2f9eba183bb7a90954f7b76361f6edb5c0a');
export const BOB = keypairFromSeed('0x398f0c28f98885e046333d4a41c19cee4c37368a9832c6502f6cfd182e2aef89');
/** A server hotkey for Epistula-Signed-For. */
export const SERVER = keypairFromSeed(new Uint8Array(32).fill(7));

export const NOW = 1_764_000_000_000;
export const UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
export const BODY = JSON.stringify({ runs: [{ runId: 'r1', resolved: true }] });

/** Headers as Node hands them over (lower-case names). */
export function signed(
  opts: { body?: string | Uint8Array; signedFor?: string; now?: number; uuid?: string; key?: typeof ALICE } = {},
): Record<string, string> {
  const headers = signRequest({
    key: opts.key ?? ALICE,
    body: 'body' in opts ? opts.body : BODY,
    signedFor: opts.signedFor ?? SERVER.address,
    now: opts.now ?? NOW,
    uuid: opts.uuid ?? UUID,
  });
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

export const without = (h: HeaderBag, name: string): HeaderBag =>
  Object.fromEntries(Object.entries(h).filter(([k]) => k !== name.toLowerCase()));
