// Forged signatures cost the server next to nothing (API.md 1.2, "The refusals that cost nothing
// come first"): a request from a hotkey no validator holds is refused on its headers, before its
// body is read and without sr25519 (about 2-3 ms a check), so a flood of them cannot hold the event
// loop. Measured on the real server process: its CPU time from /proc/<pid>/stat.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@noble/hashes/utils.js';
import { sign } from '@scure/sr25519';
import { afterAll, expect, it } from 'vitest';
import { statCpuSeconds } from '../../bench/load.js';
import { keypairFromSeed, serverHotkey } from '../../src/client/sign.js';
import { ALICE } from '../signatures/fixtures.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import { sample } from '../support/observe.js';

const FORGED = 1000;
/**
 * The bound: 1.5 ms of server CPU per forged request, everything included (HTTP, the lookup, the
 * 401). Checking each signature (sr25519, 2-3 ms, plus the same HTTP) would cost at least 2.5 ms;
 * the refusal itself cost 0.3-0.5 ms, and 0.8-1.6 ms on a slower machine (2026-12-07).
 */
const CPU_SECONDS = 1.5;
/**
 * A process's CPU time rises when other suites crowd the two cores (a CI run measured 1.63 s for
 * what took 0.53 s in the run before, beside the SIGKILL crash suite): a test that is over its bound
 * is measured again, up to twice. A real regression (sr25519 on every forged request) is over it
 * every time.
 */
const MEASURED = { timeout: 120_000, retry: 2 };
const CONCURRENCY = 8;

let server: ServerProcess | undefined;
afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

const cpu = (pid: number) => statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));

const admin = (method: 'PUT' | 'POST', path: string, body: unknown) =>
  fetch(`${server!.baseUrl}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });

/** Addresses of real sr25519 keys that no validator holds (a random 32 bytes is mostly no curve point at all). */
const STRANGERS = Array.from({ length: 64 }, () => keypairFromSeed(randomBytes(32)).address);
/**
 * Real sr25519 signatures (of other messages, by another key): a check of one runs schnorrkel's
 * whole verification, where random bytes are mostly refused on their first bytes.
 */
const HALF_REAL = Array.from({ length: 16 }, (_, i) => `0x${bytesToHex(sign(ALICE.secretKey, Uint8Array.of(i)))}`);

/** A batch of runs signed (so it claims) by `by` (by default a hotkey nobody registered): a real ss58 address, and a real signature of something else. */
function forged(
  signedFor: string,
  i: number,
  by = STRANGERS[i % STRANGERS.length]!,
): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({
    runs: Array.from({ length: 20 }, (_, j) => ({
      runId: `f-${i}-${j}`,
      taskId: 't1',
      kind: 'miner',
      minerHotkey: `m${j}`,
      resolved: true,
    })),
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'Epistula-Version': '2',
      'Epistula-Timestamp': String(Date.now()),
      'Epistula-Uuid': randomUUID(),
      'Epistula-Signed-By': by,
      'Epistula-Signed-For': signedFor,
      'Epistula-Request-Signature': HALF_REAL[i % HALF_REAL.length]!,
    },
  };
}

/** Sends `n` forged batches, CONCURRENCY at a time; answers each one's status and problem type. */
async function flood(signedFor: string, n: number, from: number, by?: string): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const { headers, body } = forged(signedFor, from + next++, by);
      const res = await fetch(`${server!.baseUrl}/v1/competitions/c/runs`, { method: 'POST', headers, body });
      const problem = (await res.json()) as { type?: string };
      const key = `${res.status} ${problem.type?.split(':').pop()}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return seen;
}

it.runIf(process.platform === 'linux')(
  `${FORGED} forged signatures from unregistered hotkeys cost the server under ${CPU_SECONDS} s of CPU`,
  MEASURED,
  async () => {
    const dir = tempDir('door-signatures');
    server = await startServer({ dbPath: join(dir.dir, 'door.db') });
    expect((await admin('PUT', '/v1/competitions/c', { name: 'C' })).status).toBe(201);
    await admin('PUT', '/v1/competitions/c/tasks', { tasks: [{ id: 't1', type: 'swebench_verified' }] });
    // A registered signer, so the lookup has a table to look in.
    expect((await admin('POST', '/v1/validators', { name: 'alice', hotkey: ALICE.address })).status).toBe(201);
    const signedFor = await serverHotkey(server.baseUrl);

    // Warm up the refusal path (the JIT, the connections) before measuring: a cold process spends
    // more on its first thousand requests of any kind than on the next.
    await flood(signedFor, 2 * FORGED, 0);
    const before = cpu(server.pid);
    const started = performance.now();
    const seen = await flood(signedFor, FORGED, 2 * FORGED);
    const wallMs = performance.now() - started;
    const spent = cpu(server.pid) - before;
    console.log(
      `[doorSignatures] ${FORGED} forged requests: ${spent.toFixed(2)} s of server CPU ` +
        `(${((spent / FORGED) * 1e3).toFixed(3)} ms each), ${wallMs.toFixed(0)} ms wall`,
    );
    expect(Object.fromEntries(seen)).toEqual({ '401 unknown-hotkey': FORGED });
    expect(spent).toBeLessThan(CPU_SECONDS);
    // Nothing was stored.
    const runs = await fetch(`${server.baseUrl}/v1/competitions/c/runs`);
    expect(((await runs.json()) as { runs: unknown[] }).runs).toEqual([]);
  },
);

it.runIf(process.platform === 'linux')(
  `${FORGED} forged signatures of a registered hotkey from one address: past its failure budget, refused before sr25519`,
  MEASURED,
  async () => {
    const dir = tempDir('door-signatures-registered');
    server = await startServer({ dbPath: join(dir.dir, 'door.db') });
    expect((await admin('PUT', '/v1/competitions/c', { name: 'C' })).status).toBe(201);
    await admin('PUT', '/v1/competitions/c/tasks', { tasks: [{ id: 't1', type: 'swebench_verified' }] });
    // Validators' hotkeys are public (they are registered on chain): anyone can name one.
    expect((await admin('POST', '/v1/validators', { name: 'alice', hotkey: ALICE.address })).status).toBe(201);
    const signedFor = await serverHotkey(server.baseUrl);

    const cpuAtStart = cpu(server.pid);
    const first = await flood(signedFor, 2 * FORGED, 0, ALICE.address);
    console.log(
      `[doorSignatures] ${2 * FORGED} forged requests of a registered hotkey, the budget's included: ` +
        `${(cpu(server.pid) - cpuAtStart).toFixed(2)} s of server CPU`,
    );
    // The default budget, 30 a minute: those checks ran sr25519 (a few more may, admitted on their
    // headers while the 30th was being checked: at most one a connection), the rest were refused on
    // their headers.
    const checked = first.get('401 signature-invalid') ?? 0;
    expect(checked).toBeGreaterThanOrEqual(30);
    expect(checked).toBeLessThan(30 + CONCURRENCY);
    expect(Object.fromEntries(first)).toEqual({
      '401 signature-invalid': checked,
      '429 too-many-requests': 2 * FORGED - checked,
    });
    const before = cpu(server.pid);
    const seen = await flood(signedFor, FORGED, 2 * FORGED, ALICE.address);
    const spent = cpu(server.pid) - before;
    console.log(
      `[doorSignatures] ${FORGED} forged requests of a registered hotkey past the budget: ${spent.toFixed(2)} s of server CPU`,
    );
    expect(Object.fromEntries(seen)).toEqual({ '429 too-many-requests': FORGED });
    expect(spent).toBeLessThan(CPU_SECONDS);
    // On /metrics by why: the budget's 429s, not the rate limit's.
    expect(await sample(server, 'scoring_requests_refused_total{reason="signature-failures"}')).toBe(
      3 * FORGED - checked,
    );
    expect(await sample(server, 'scoring_requests_refused_total{reason="rate-limit"}')).toBe(0);
    const runs = await fetch(`${server.baseUrl}/v1/competitions/c/runs`);
    expect(((await runs.json()) as { runs: unknown[] }).runs).toEqual([]);
  },
);
