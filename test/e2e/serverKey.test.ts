// The address signed requests name (API.md 1.2), as operators run the server: generated beside
// the database at first start and kept across restarts, or SCORING_SERVER_HOTKEY when set (then no
// key file is made). GET /v1/identity announces it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { serverHotkey } from '../../src/client/sign.js';
import { loadServerKey } from '../../src/serverKey.js';
import { ALICE } from '../signatures/fixtures.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

it('generates the server key beside the database once, and announces its address across restarts', async () => {
  const dir = tempDir('server-key-e2e').dir;
  const dbPath = join(dir, 'db.sqlite');
  let server = await startServer({ dbPath });
  const announced = await serverHotkey(server.baseUrl);
  await server.stop();
  expect(loadServerKey(join(dir, 'server-key'))).toMatchObject({ generated: false, keypair: { address: announced } });
  server = await startServer({ dbPath });
  expect(await serverHotkey(server.baseUrl)).toBe(announced);
  await server.stop();
}, 60_000);

it('announces SCORING_SERVER_HOTKEY when set, and makes no key file', async () => {
  const dir = tempDir('server-key-e2e').dir;
  const server = await startServer({ dbPath: join(dir, 'db.sqlite'), env: { SCORING_SERVER_HOTKEY: ALICE.address } });
  expect(await serverHotkey(server.baseUrl)).toBe(ALICE.address);
  expect(existsSync(join(dir, 'server-key'))).toBe(false);
  await server.stop();
}, 60_000);
