// A signed request replayed after a server restart (killed, not shut down) is still refused: the
// (hotkey, uuid) pairs are kept in the database, not in memory (API.md 1.1).
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { serverHotkey, signRequest } from '../../src/client/sign.js';
import { ALICE } from '../signatures/fixtures.js';
import { SERVER_ADMIN_TOKEN as E2E_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

// A window wide enough that a slow restart on a busy machine stays inside it.
const WINDOW_MS = 60_000;
const dir = tempDir('replay');
const dbPath = join(dir.dir, 'replay.db');
let server: ServerProcess | undefined;
const start = () => startServer({ dbPath, env: { SCORING_SIGNATURE_WINDOW_MS: String(WINDOW_MS) } });

afterAll(async () => {
  await server?.stop('SIGKILL');
  dir.remove();
});

const adminCall = async (base: string, method: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res.json();
};

const send = (base: string, payload: string, headers: Record<string, string>) =>
  fetch(`${base}/v1/competitions/c/runs`, {
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json', ...headers },
  });

it('refuses a replay after the server is killed and restarted inside the window', async () => {
  server = await start();
  await adminCall(server.baseUrl, 'PUT', '/v1/competitions/c', { name: 'C' });
  await adminCall(server.baseUrl, 'PUT', '/v1/competitions/c/tasks', {
    tasks: [{ id: 't1', type: 'swebench_verified' }],
  });
  await adminCall(server.baseUrl, 'POST', '/v1/validators', { name: 'alice', hotkey: ALICE.address });

  const payload = JSON.stringify({
    runs: Array.from({ length: 50 }, (_, i) => ({
      runId: `r${i}`,
      taskId: 't1',
      kind: 'miner',
      minerHotkey: `m${i % 5}`,
      resolved: i % 2 === 0,
    })),
  });
  // The address the server generated beside its database, which it keeps across the restart.
  const signedFor = await serverHotkey(server.baseUrl);
  const signedAt = Date.now();
  const headers = signRequest({ key: ALICE, body: payload, now: signedAt, signedFor });
  const first = await send(server.baseUrl, payload, headers);
  expect(first.status, await first.clone().text()).toBe(200);
  expect(await first.json()).toEqual({ accepted: 50, duplicates: 0 });

  expect((await server.stop('SIGKILL')).signal).toBe('SIGKILL');
  server = await start();
  expect(await serverHotkey(server.baseUrl)).toBe(signedFor);

  const replay = await send(server.baseUrl, payload, headers);
  expect(Date.now() - signedAt).toBeLessThan(WINDOW_MS);
  expect(replay.status).toBe(401);
  const problem = await replay.json();
  expect(problem.type).toMatch(/:signature-replayed$/);
  expect(JSON.stringify(problem.errors)).toContain('headers/epistula-uuid');

  // The signer itself is fine: a fresh signature of the same bytes is a duplicate batch, not a refusal.
  const fresh = await send(server.baseUrl, payload, signRequest({ key: ALICE, body: payload, signedFor }));
  expect(fresh.status).toBe(200);
  expect(await fresh.json()).toEqual({ accepted: 0, duplicates: 50 });
}, 120_000);
