// The server's Ed25519 snapshot-signing key: read from a PEM file (PKCS#8), or generated into it
// at first start with mode 0600 (src/privateFiles.ts), like the admin token. Its public half is published at
// GET /v1/identity.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makePrivateDir } from './privateFiles.js';
import type { Signer } from './snapshots/seal.js';

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
  if (existsSync(path)) return { signer: signer(readKey(path)), generated: false };
  makePrivateDir(dirname(path));
  const { privateKey } = generateKeyPairSync('ed25519');
  if (!writeOnce(path, privateKey.export({ type: 'pkcs8', format: 'pem' })))
    return { signer: signer(readKey(path)), generated: false };
  return { signer: signer(privateKey), generated: true };
}

/**
 * Writes a secret file with mode 0600 unless one is already at `path`; false when another was
 * there. Written beside and linked into place: the file never exists half written, and of several
 * processes starting together on a shared volume (replicas on PostgreSQL) exactly one key wins.
 */
export function writeOnce(path: string, contents: string | Buffer): boolean {
  makePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, contents, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
  return true;
}

function readKey(path: string): KeyObject {
  try {
    return createPrivateKey({ key: readFileSync(path, 'utf8'), format: 'pem' });
  } catch {
    throw new Error(`${path} holds no usable private key (PKCS#8 PEM expected)`);
  }
}
