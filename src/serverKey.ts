// The server's own sr25519 key pair: its ss58 address is what validators sign for
// (Epistula-Signed-For, API.md 1.2) when SCORING_SERVER_HOTKEY names none. Read from a file holding
// the 32-byte mini-secret as 0x-prefixed hex (subkey's "Secret seed"), or generated into it at
// first start with mode 0600, beside the snapshot-signing key. Announced at GET /v1/identity.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { keypairFromSeed, type EpistulaKeypair } from './client/keypair.js';
import { writeOnce } from './signingKey.js';

/** A key pair that lives only as long as the process (tests, throwaway servers). */
export const ephemeralServerKey = (): EpistulaKeypair => keypairFromSeed(randomBytes(32));

/** Reads the key pair at `path`, or generates it there; `generated` says which. */
export function loadServerKey(path: string): { keypair: EpistulaKeypair; generated: boolean } {
  if (existsSync(path)) return { keypair: readKey(path), generated: false };
  const seed = randomBytes(32);
  if (!writeOnce(path, `0x${seed.toString('hex')}\n`)) return { keypair: readKey(path), generated: false };
  return { keypair: keypairFromSeed(seed), generated: true };
}

function readKey(path: string): EpistulaKeypair {
  const text = readFileSync(path, 'utf8').trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(text))
    throw new Error(`${path} holds no usable server key (0x and 64 hex digits of an sr25519 mini-secret expected)`);
  return keypairFromSeed(text);
}
