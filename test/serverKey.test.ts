// The server's own sr25519 key pair (API.md 1.2): generated once beside the snapshot-signing key
// with mode 0600, read back on every later start, and its address what signed requests name.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keypairFromSeed } from '../src/client/keypair.js';
import { loadConfig } from '../src/config.js';
import { loadServerKey } from '../src/serverKey.js';
import { removeTempDirs, tempDir } from './support/tempDir.js';

afterAll(() => removeTempDirs());

describe('the server key', () => {
  it('is generated once with mode 0600, as the seed in hex, and read back the same', () => {
    const path = join(tempDir('server-key').dir, 'sub', 'server-key');
    const first = loadServerKey(path);
    expect(first.generated).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8').trim();
    expect(text).toMatch(/^0x[0-9a-f]{64}$/);
    expect(keypairFromSeed(text).address).toBe(first.keypair.address);
    const second = loadServerKey(path);
    expect(second).toMatchObject({ generated: false, keypair: { address: first.keypair.address } });
  });

  it('refuses a file that holds no key, naming it', () => {
    const path = join(tempDir('server-key').dir, 'server-key');
    writeFileSync(path, 'not a key\n');
    expect(() => loadServerKey(path)).toThrow(new RegExp(`${path} holds no usable server key`));
  });

  it('lives beside the snapshot-signing key unless SCORING_SERVER_KEY_PATH says otherwise', () => {
    const dir = tempDir('server-key').dir;
    const token = { SCORING_ADMIN_TOKEN: 'x'.repeat(16) };
    expect(loadConfig({ ...token, DATABASE_PATH: join(dir, 'db.sqlite') }).serverKeyPath).toBe(join(dir, 'server-key'));
    expect(loadConfig({ ...token, SCORING_SIGNING_KEY_PATH: '/keys/signing-key.pem' }).serverKeyPath).toBe(
      '/keys/server-key',
    );
    expect(loadConfig({ ...token, SCORING_SERVER_KEY_PATH: '/elsewhere/k' }).serverKeyPath).toBe('/elsewhere/k');
  });

  it('SCORING_SIGNATURE_WINDOW_MS is at most the 600,000 ms for which used uuids are kept', () => {
    const token = { SCORING_ADMIN_TOKEN: 'x'.repeat(16) };
    expect(loadConfig({ ...token, SCORING_SIGNATURE_WINDOW_MS: '600000' }).signatureWindowMs).toBe(600_000);
    expect(() => loadConfig({ ...token, SCORING_SIGNATURE_WINDOW_MS: '600001' })).toThrow(/0 to 600000/);
  });
});
