// The server's Ed25519 snapshot-signing key: read from a PEM file (PKCS#8), or generated into it
// at first start with mode 0600, like the admin token. Its public half is published at
// GET /v1/identity.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Signer } from './services/snapshots.js';

function signer(privateKey: KeyObject): Signer {
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`the signing key is ${privateKey.asymmetricKeyType}, not ed25519`);
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { privateKey, publicKeyPem };
}

/** A key that lives only as long as the process (tests, throwaway servers). */
export const ephemeralSigner = (): Signer => signer(generateKeyPairSync('ed25519').privateKey);

/** Reads the key at `path`, or generates it there; `generated` says which. */
export function loadSigningKey(path: string): { signer: Signer; generated: boolean } {
  if (existsSync(path)) {
    const pem = readFileSync(path, 'utf8');
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      throw new Error(`${path} holds no usable private key (PKCS#8 PEM expected)`);
    }
    return { signer: signer(key), generated: false };
  }
  mkdirSync(dirname(path), { recursive: true });
  const { privateKey } = generateKeyPairSync('ed25519');
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return { signer: signer(privateKey), generated: true };
}
