// Graceful shutdown: SIGTERM while a large batch is in flight lets the request finish with 200,
// the process exits 0, and after a restart every acknowledged run is there.
import { request, Agent } from 'node:http';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createScoringClient, type components } from '../../src/client/index.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

type RunIn = components['schemas']['RunResultInput'];
const C = 'graceful';
const path = { competitionId: C };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function bigBatch(prefix: string, size: number): RunIn[] {
  return Array.from({ length: size }, (_, i) => ({
    runId: `${prefix}-${i}`,
    taskId: `t${i % 10}`,
    kind: 'miner' as const,
    minerHotkey: `m${i % 7}`,
    attemptNo: i % 5,
    resolved: i % 3 !== 0,
    tokens: { input: 1000 + i, cachedInput: 2 * i, output: 100 + (i % 50) },
  }));
}

let tmp: TempDir | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop('SIGKILL');
  tmp?.remove();
});

async function setUp(dbPath: string): Promise<string> {
  server = await startServer({ dbPath });
  const a = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
  await a.PUT('/v1/competitions/{competitionId}', { params: { path }, body: { name: 'Graceful' } });
  const tasks = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' as const }));
  expect(
    (await a.PUT('/v1/competitions/{competitionId}/tasks', { params: { path }, body: { tasks } })).response.status,
  ).toBe(200);
  return (await a.POST('/v1/validators', { body: { name: 'v' } })).data!.apiKey!;
}

/** Starts a POST whose body is sent in two halves; `finish` sends the rest and resolves with the response. */
function halfSentPost(baseUrl: string, key: string, runs: RunIn[], agent: Agent) {
  const body = Buffer.from(JSON.stringify({ runs }));
  const req = request(`${baseUrl}/v1/competitions/${C}/runs`, {
    method: 'POST',
    agent,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.subarray(0, half));
  return { finish: () => (req.end(body.subarray(half)), response) };
}

async function storedRuns(baseUrl: string, ids: string[]): Promise<number> {
  const pub = createScoringClient(baseUrl);
  let found = 0;
  for (const runId of ids) {
    const res = await pub.GET('/v1/competitions/{competitionId}/runs/{runId}', {
      params: { path: { ...path, runId } },
    });
    if (res.response.status === 200) found++;
    else expect(res.response.status).toBe(404);
  }
  return found;
}

// Server starts and restarts (tsx): more than the default 30 s on a loaded machine.
describe('graceful shutdown', { timeout: 120_000 }, () => {
  it('finishes a batch in flight at SIGTERM, exits 0, and keeps the batch', async () => {
    tmp = tempDir('e2e');
    const dbPath = `${tmp.dir}/scoring.db`;
    const key = await setUp(dbPath);
    const runs = bigBatch('inflight', 5000);
    // A keep-alive agent, as validators use: the server must still close the connection after the reply.
    const agent = new Agent({ keepAlive: true });
    const inflight = halfSentPost(server!.baseUrl, key, runs, agent);
    await sleep(300); // the request line and headers are in; half the body is on its way
    const t0 = Date.now();
    server!.child.kill('SIGTERM');
    await sleep(300);
    // A new connection during the shutdown is refused (or answered 503): no new work is accepted.
    const late = await fetch(`${server!.baseUrl}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(['refused', 503]).toContain(late);

    const res = await inflight.finish();
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ accepted: 5000, duplicates: 0 });
    const exit = await server!.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(10_000);
    agent.destroy();

    server = await startServer({ dbPath });
    const c = (await createScoringClient(server.baseUrl).GET('/v1/competitions/{competitionId}', { params: { path } }))
      .data!;
    expect(c.counts.runs).toBe(5000);
    expect(await storedRuns(server.baseUrl, ['inflight-0', 'inflight-2500', 'inflight-4999'])).toBe(3);
    await server.stop('SIGTERM');
  });

  it('stores exactly the acknowledged batches when SIGTERM lands among concurrent posts', async () => {
    tmp?.remove();
    tmp = tempDir('e2e');
    const dbPath = `${tmp.dir}/scoring.db`;
    const key = await setUp(dbPath);
    const v = createScoringClient(server!.baseUrl, key);
    const batches = [0, 1, 2, 3, 4, 5].map((b) => bigBatch(`race${b}`, 2000));
    const posts = batches.map(async (runs, b) => {
      await sleep(b * 15);
      try {
        const res = await v.POST('/v1/competitions/{competitionId}/runs', { params: { path }, body: { runs } });
        return res.response.status === 200 ? 'ack' : `status ${res.response.status}`;
      } catch {
        return 'refused';
      }
    });
    await sleep(40);
    server!.child.kill('SIGTERM');
    const outcomes = await Promise.all(posts);
    expect(await server!.exited).toEqual({ code: 0, signal: null });
    expect(outcomes.filter((o) => o !== 'ack' && o !== 'refused' && o !== 'status 503')).toEqual([]);

    server = await startServer({ dbPath });
    for (const [b, runs] of batches.entries()) {
      const ids = [runs[0]!.runId, runs[1000]!.runId, runs[1999]!.runId];
      // An acknowledged batch is stored whole; a refused one not at all.
      expect(await storedRuns(server.baseUrl, ids), `batch ${b}: ${outcomes[b]}`).toBe(outcomes[b] === 'ack' ? 3 : 0);
    }
    const c = (await createScoringClient(server.baseUrl).GET('/v1/competitions/{competitionId}', { params: { path } }))
      .data!;
    expect(c.counts.runs).toBe(2000 * outcomes.filter((o) => o === 'ack').length);
    console.info(`SIGTERM among concurrent posts: ${outcomes.join(', ')}`);
  });

  it('does not wait past its grace period for a client that stopped sending', async () => {
    tmp = tempDir('e2e');
    const dbPath = `${tmp.dir}/scoring.db`;
    await server?.stop('SIGKILL');
    server = await startServer({ dbPath, env: { SCORING_SHUTDOWN_GRACE_MS: '1500' } });
    const a = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
    await a.PUT('/v1/competitions/{competitionId}', { params: { path }, body: { name: 'Graceful' } });
    // Half a body, then nothing: without a deadline the exit waited for this client to hang up.
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {}); // closed by the server: expected
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /v1/competitions/${C}/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SERVER_ADMIN_TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"runs"',
    );
    await sleep(300);
    const t0 = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(6_000);
    expect(server.output()).toContain('closing the connections of requests still open');
    await closed;
  });
});
