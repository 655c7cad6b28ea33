// The snapshot-signing key lives beside the database, not in it: a database restored without its
// key would have its next snapshots signed by a new one. The server keeps the history of its keys
// in the database: a start with another key over snapshots is refused, naming the file and the
// flag; with the flag it starts, audits the change, and GET /v1/identity lists both keys, each
// with the snapshots it signed, so `verify --identity` checks old and new snapshots alike.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli } from '../cli/cli.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('signing-key');
const dbPath = `${tmp.dir}/db.sqlite`;
const keyFile = join(dirname(dbPath), 'signing-key.pem');
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  tmp.remove();
});

const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function snapshot(s: ServerProcess): Promise<number> {
  const taken = await fetch(`${s.baseUrl}/v1/competitions/kept/snapshots`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ note: `by ${s.baseUrl}` }),
  });
  expect(taken.status).toBe(201);
  return ((await taken.json()) as { seq: number }).seq;
}

/** The snapshot and its input, saved to files for `verify`. */
async function saveSnapshot(s: ServerProcess, seq: number): Promise<[string, string]> {
  const files: [string, string] = [`${tmp.dir}/snapshot-${seq}.json`, `${tmp.dir}/input-${seq}.ndjson`];
  const base = `${s.baseUrl}/v1/competitions/kept/snapshots/${seq}`;
  writeFileSync(files[0], Buffer.from(await (await fetch(base)).arrayBuffer()));
  writeFileSync(files[1], Buffer.from(await (await fetch(`${base}/input`)).arrayBuffer()));
  return files;
}

interface Identity {
  publicKey: string;
  signingKeys: {
    fingerprint: string;
    publicKey: string;
    inForce: boolean;
    snapshots: { competitionId: string; firstSeq: number; lastSeq: number }[];
  }[];
}
const identity = async (s: ServerProcess) => (await (await fetch(`${s.baseUrl}/v1/identity`)).json()) as Identity;

it('refuses a start with a new key over signed snapshots, starts with the flag, and lists and verifies both keys', async () => {
  server = await startServer({ dbPath });
  const put = await fetch(`${server.baseUrl}/v1/competitions/kept`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({ name: 'Kept' }),
  });
  expect(put.status).toBe(201);
  expect(await snapshot(server)).toBe(1);
  const old = await saveSnapshot(server, 1);
  const first = await identity(server);
  expect(first.signingKeys).toEqual([
    {
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      publicKey: first.publicKey,
      recordedAt: expect.any(String),
      inForce: true,
      snapshots: [{ competitionId: 'kept', firstSeq: 1, lastSeq: 1 }],
    },
  ]);
  await server.stop();

  // The same key: it starts, and the history stays one key.
  server = await startServer({ dbPath });
  expect((await identity(server)).signingKeys).toHaveLength(1);
  await server.stop();

  // The database without its key (restored to a new folder): a new key is generated, and the start refused.
  rmSync(keyFile);
  const refused = await startServer({ dbPath }).then(
    () => 'started',
    (e: Error) => e.message,
  );
  expect(refused).toMatch(/^server exited before ready \(\{"code":1/);
  const line = String(refused)
    .split('\n')
    .find((l) => l.startsWith('swe-scoring: '));
  expect(line).toContain(keyFile);
  expect(line).toContain('--new-signing-key');
  expect(line).toContain('SCORING_ACCEPT_NEW_SIGNING_KEY=true');

  // Told the change is meant: it starts, and the change is in the audit log.
  server = await startServer({ dbPath, env: { SCORING_ACCEPT_NEW_SIGNING_KEY: 'true' } });
  expect(await snapshot(server)).toBe(2);
  const fresh = await saveSnapshot(server, 2);
  const both = await identity(server);
  expect(both.signingKeys.map((k) => [k.fingerprint, k.inForce, k.snapshots])).toEqual([
    [first.signingKeys[0]!.fingerprint, false, [{ competitionId: 'kept', firstSeq: 1, lastSeq: 1 }]],
    [
      expect.not.stringMatching(first.signingKeys[0]!.fingerprint),
      true,
      [{ competitionId: 'kept', firstSeq: 2, lastSeq: 2 }],
    ],
  ]);
  expect(both.publicKey).toBe(both.signingKeys[1]!.publicKey);
  const audit = (await (await fetch(`${server.baseUrl}/v1/audit`, { headers: admin })).json()) as {
    entries: { action: string; target: string; summary: { previous: string } }[];
  };
  expect(audit.entries.find((e) => e.action === 'signingKey.change')).toMatchObject({
    target: both.signingKeys[1]!.fingerprint,
    summary: { previous: first.signingKeys[0]!.fingerprint },
  });
  await server.stop();

  // The new key is now the last one used: the next start needs no flag.
  server = await startServer({ dbPath });
  await server.stop();
  server = undefined;

  // Each snapshot verifies with the key the identity document lists for it; the single new key fails the old one.
  const identityFile = `${tmp.dir}/identity.json`;
  writeFileSync(identityFile, JSON.stringify(both));
  for (const [snapshotFile, inputFile] of [old, fresh]) {
    const r = await cli('verify', [snapshotFile, inputFile, '--identity', identityFile]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^ok\s+signature/m);
    expect(r.code).toBe(0);
  }
  const newKeyFile = `${tmp.dir}/new.pem`;
  writeFileSync(newKeyFile, both.publicKey);
  const wrong = await cli('verify', [...old, '--public-key', newKeyFile]);
  expect(wrong.code).toBe(1);
  expect(wrong.stdout).toMatch(/^FAILED\s+signature/m);
}, 120_000);
