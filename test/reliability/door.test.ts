// The limits at the door against the real server process, as an attacker meets them (API.md 1.2,
// docs/SECURITY.md "Limits at the door"): bodies sent in part and then stalled are cut off by the
// body timeout with their memory let go, bodies pushed at once are held to the in-flight budget,
// and thousands of event streams from one address are held to its cap, their descriptors returned.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

const MIB = 1024 * 1024;
const BODY_TIMEOUT_MS = 2000;
const PER_ADDRESS_STREAMS = 8;

let tmp: TempDir;
let server: ServerProcess;
let validatorKey: string;

async function call(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  tmp = tempDir('door');
  server = await startServer({
    dbPath: `${tmp.dir}/db.sqlite`,
    env: {
      SCORING_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      SCORING_MAX_EVENT_STREAMS_PER_ADDRESS: String(PER_ADDRESS_STREAMS),
    },
  });
  expect((await call('PUT', '/v1/competitions/c', SERVER_ADMIN_TOKEN, { name: 'c' })).status).toBe(201);
  const tasks = { tasks: [{ id: 't', type: 'swebench_verified' }] };
  expect((await call('PUT', '/v1/competitions/c/tasks', SERVER_ADMIN_TOKEN, tasks)).status).toBe(200);
  const v = await call('POST', '/v1/validators', SERVER_ADMIN_TOKEN, { name: 'v' });
  validatorKey = ((await v.json()) as { apiKey: string }).apiKey;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  tmp?.remove();
});

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
const fdDir = () => `/proc/${server.pid}/fd`;
/** The server's open descriptors: all of them, and the sockets of connections to its port. */
function openFds(): { all: number; clients: number } {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${server.pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local address:port in hex, state (0A: listening), inode
      if (cols.length > 9 && parseInt(cols[1]!.split(':')[1]!, 16) === server.port && cols[3] !== '0A')
        inodes.add(cols[9]!);
    }
  }
  const fds = readdirSync(fdDir());
  const clients = fds.filter((fd) => {
    try {
      return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`${fdDir()}/${fd}`))?.[1] ?? '');
    } catch {
      return false; // closed meanwhile
    }
  }).length;
  return { all: fds.length, clients };
}
/** On PostgreSQL the pool opens connections as requests need them (DATABASE_POOL_SIZE, 10). */
const POOL = process.env.SCORING_TEST_ENGINE === 'postgres' ? 10 : 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A value of the server's /metrics. */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

/** The server's peak RSS while `work` runs, sampled every 50 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = rssMb();
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb())), 50);
  try {
    return { result: await work(), peakMb };
  } finally {
    clearInterval(sampler);
  }
}

interface Raw {
  socket: Socket;
  received: () => string;
  /** Resolves when the server closes the connection, with the ms since it was opened. */
  closed: Promise<number>;
}

async function open(): Promise<Raw> {
  const socket = connect(server.port, '127.0.0.1');
  const opened = performance.now();
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {}); // a reset after the answer is one way of closing
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
  return { socket, received: () => text, closed };
}

/** A 31 MiB batch of runs announced, of which `send` bytes are sent before the client stalls. */
async function stalledBody(send: number): Promise<Raw> {
  const raw = await open();
  raw.socket.write(
    'POST /v1/competitions/c/runs HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${SERVER_ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${31 * MIB}\r\n\r\n{"runs": [`,
  );
  const piece = Buffer.alloc(MIB, 0x20);
  for (let sent = 0; sent < send && !raw.socket.destroyed && !raw.received(); sent += piece.length) {
    if (!raw.socket.write(piece.subarray(0, Math.min(piece.length, send - sent))))
      await Promise.race([new Promise((r) => raw.socket.once('drain', r)), raw.closed, sleep(BODY_TIMEOUT_MS * 2)]);
  }
  return raw;
}

const status = (raw: Raw) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw.received())?.[1] ?? 0);

function expectRefusal(raw: Raw, code: number): void {
  const text = raw.received();
  expect(status(raw), text.slice(0, 300)).toBe(code);
  expect(text).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(text).toMatch(/\r\nretry-after: \d+\r\n/i);
  expect(text).toMatch(/\r\nconnection: close\r\n/i);
  expect(text).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
}

const batch = (prefix: string) => ({
  runs: Array.from({ length: 200 }, (_, i) => ({
    runId: `${prefix}-${i}`,
    taskId: 't',
    kind: 'miner',
    minerHotkey: `hk-${i % 20}`,
    resolved: i % 2 === 0,
    tokens: { input: 1000, output: 100 },
  })),
});

describe('bodies at the door', () => {
  it('16 bodies of 31 MiB sent in part and stalled: each cut off by the body timeout, memory bounded, a batch answered meanwhile', async () => {
    const before = rssMb();
    const { result, peakMb } = await peakRss(async () => {
      const stalled = await Promise.all(Array.from({ length: 16 }, () => stalledBody(2 * MIB)));
      await sleep(200);
      const held = await metric('scoring_inflight_body_bytes');
      const started = performance.now();
      const res = await call('POST', '/v1/competitions/c/runs', validatorKey, batch('during-stall'));
      const batchMs = performance.now() - started;
      expect(res.status).toBe(200);
      const closedAfter = await Promise.all(stalled.map((s) => s.closed));
      return { stalled, batchMs, closedAfter, held };
    });
    // Held while they stall (what arrived of 16 x 2 MiB), all let go once they are refused.
    expect(result.held).toBeGreaterThan(8 * MIB);
    expect(result.held).toBeLessThanOrEqual(16 * 2 * MIB + 16 * 100);
    expect(await metric('scoring_inflight_body_bytes')).toBe(0);
    for (const raw of result.stalled) expectRefusal(raw, 408);
    // Opened just before: closed by the 2 s timeout, not by Node's own clocks (20 s and more).
    for (const ms of result.closedAfter) expect(ms).toBeLessThan(BODY_TIMEOUT_MS + 2000);
    expect(result.batchMs).toBeLessThan(1000);
    expect(peakMb).toBeLessThan(250);
    console.log(
      `[door] 16 stalled 31 MiB bodies: RSS ${before.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB, ` +
        `${(result.held / MIB).toFixed(1)} MiB held while they stalled, 0 after; ` +
        `each closed by a 408 within ${Math.max(...result.closedAfter).toFixed(0)} ms, a 200-run batch meanwhile in ` +
        `${result.batchMs.toFixed(0)} ms`,
    );
  });

  it('16 bodies of 31 MiB pushed and never finished: held to the in-flight budget (503), the rest cut off (408)', async () => {
    const before = rssMb();
    const { result, peakMb } = await peakRss(async () => {
      const pushed = await Promise.all(Array.from({ length: 16 }, () => stalledBody(31 * MIB - 100)));
      await Promise.all(pushed.map((s) => s.closed));
      return pushed;
    });
    const statuses = result.map(status);
    expect(statuses.filter((s) => s !== 408 && s !== 503)).toEqual([]);
    expect(statuses).toContain(503);
    for (const raw of result) expectRefusal(raw, status(raw));
    // Bounded by the budget, not by what the clients send (16 x 31 MiB, about 500 MB): the bytes held,
    // and those of refused bodies until they are collected, some twice the budget (SECURITY.md), over
    // what the server held before. Measured: +104 to +122 MB on a quiet machine, whose clients push
    // fastest, +57 to +75 under CI's load. (An absolute bound, 250 MB, failed on the quiet machine.)
    expect(peakMb - before).toBeLessThan(2 * 48 + 50); // MB; the default budget, 48 MiB
    console.log(
      `[door] 16 bodies pushed: ${statuses.filter((s) => s === 503).length} refused by the 48 MiB budget (503), ` +
        `${statuses.filter((s) => s === 408).length} cut off (408); RSS ${before.toFixed(0)} -> peak ${peakMb.toFixed(0)} MB`,
    );
    expect(await metric('scoring_inflight_body_bytes')).toBe(0);
    // Counted by why: the budget's 503s as `busy`.
    expect(await metric('scoring_requests_refused_total{reason="busy"}')).toBe(
      statuses.filter((s) => s === 503).length,
    );
    // The server goes on: a batch after it all is answered.
    expect((await call('POST', '/v1/competitions/c/runs', validatorKey, batch('after'))).status).toBe(200);
  });
});

describe('event streams at the door', () => {
  it('5,000 stream attempts from one address: its cap holds, the rest are 429s, descriptors back after', async () => {
    await sleep(200);
    const baseline = openFds();
    const kept: Raw[] = [];
    const counts = { 200: 0, 429: 0, other: 0 };
    let peakFds = baseline.all;
    const attempt = async () => {
      const raw = await open();
      raw.socket.write('GET /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!raw.received().includes('\r\n\r\n')) await Promise.race([sleep(5), raw.closed]);
      const code = status(raw);
      if (code === 200) {
        counts[200]++;
        kept.push(raw);
        return;
      }
      if (code === 429) {
        counts[429]++;
        expect(raw.received()).toMatch(/\r\ncontent-type: application\/problem\+json/i);
        expect(raw.received()).toMatch(/\r\nretry-after: \d+\r\n/i);
      } else counts.other++;
      raw.socket.destroy();
      await raw.closed;
    };
    const WAVE = 250;
    for (let i = 0; i < 5000; i += WAVE) {
      await Promise.all(Array.from({ length: WAVE }, attempt));
      peakFds = Math.max(peakFds, openFds().all);
    }
    expect(counts).toEqual({ 200: PER_ADDRESS_STREAMS, 429: 5000 - PER_ADDRESS_STREAMS, other: 0 });
    for (const raw of kept) raw.socket.destroy();
    await Promise.all(kept.map((r) => r.closed));
    let after = openFds();
    for (let i = 0; i < 100 && (after.clients > baseline.clients || after.all > baseline.all); i++) {
      await sleep(50);
      after = openFds();
    }
    // The connections there before (the test's own keep-alive ones) may still be open; none of the attempts'.
    expect(after.clients).toBeLessThanOrEqual(baseline.clients);
    expect(after.all).toBeLessThanOrEqual(baseline.all + POOL);
    // The cap is free again: a new stream opens.
    const again = await open();
    again.socket.write('GET /v1/competitions/c/events HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!again.received().includes('\r\n\r\n')) await sleep(5);
    expect(status(again)).toBe(200);
    again.socket.destroy();
    console.log(
      `[door] 5,000 event-stream attempts from one address: ${counts[200]} opened, ${counts[429]} refused (429); ` +
        `server fds ${baseline.all} -> at most ${peakFds} -> ${after.all} (client connections ${baseline.clients} -> ${after.clients})`,
    );
  }, 60_000);
});
