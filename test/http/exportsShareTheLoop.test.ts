// A long stream (a runs export, a snapshot's input document) read by a client that keeps up must
// not hold the event loop: on SQLite every page is read synchronously, and a stream pulled through
// promises that are already settled never let another request in until its last byte. Anyone may
// start an export, so it was a way to stop the server for as long as the export lasts.
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const RUNS = 40_000;
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t, 'c');
  const tasks = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified', complexity: 'short' }));
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  for (let b = 0; b < RUNS / 1000; b++) {
    const runs = Array.from({ length: 1000 }, (_, i) => ({
      runId: `r-${b}-${i}`,
      taskId: `t${i % 50}`,
      kind: 'miner',
      minerHotkey: `m${b % 20}`,
      resolved: i % 3 === 0,
      tokens: { input: 1000 + i, output: 100 },
    }));
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: { authorization: `Bearer ${validatorKey}` },
      payload: { runs },
    });
    expect(res.status).toBe(200);
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => t.close());

/**
 * Reads `path` to its end from another process, as fast as it comes (a reader in this process would
 * share the server's event loop, and a slower one holds the stream back), while this
 * process times the turns of its event loop (a callback scheduled again each turn). A stream that
 * holds the loop shows as one gap as long as the whole transfer (measured: 1.1 to 2x it); one that
 * gives way between its chunks, as gaps of a chunk's time (a garbage collection may add one: the
 * bound is 0.6x the transfer). Only the part of a gap between the first byte and the last counts
 * (both processes' clocks are the epoch's): on a loaded machine a gap of 316 ms was seen against a
 * transfer of 207, at least a third of it before the first byte (the export's first page, the
 * reader's own start).
 */
async function loopGapDuring(path: string): Promise<{ longestGapMs: number; transferMs: number; bytes: number }> {
  // A raw socket in another process reads as fast as curl would (fetch's stream would be slower):
  // it prints the status, the bytes after the headers, and the milliseconds from first to last byte.
  const { port } = new URL(base);
  const reader = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').connect(${port}, '127.0.0.1');
      s.write(${JSON.stringify(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${admin.authorization}\r\nConnection: close\r\n\r\n`)});
      const now = () => performance.timeOrigin + performance.now();
      let head = '', bytes = 0, first = 0;
      s.on('data', (d) => {
        if (!first) first = now();
        if (head.length < 64) head += d.toString('latin1', 0, 64);
        bytes += d.length;
      });
      s.on('end', () => process.stdout.write(head.slice(9, 12) + ' ' + bytes + ' ' + first + ' ' + now()));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  reader.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let done = false;
  const now = () => performance.timeOrigin + performance.now();
  let last = now();
  /** The gaps between turns longer than a millisecond, as [start, end] on the epoch's clock. */
  const gaps: [number, number][] = [];
  const tick = () => {
    const at = now();
    if (at - last > 1) gaps.push([last, at]);
    last = at;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise<void>((resolve) => reader.once('close', () => resolve()));
  done = true;
  const [status, bytes, first, end] = out.split(' ').map(Number);
  expect(status).toBe(200);
  const longestGapMs = Math.max(0, ...gaps.map(([a, b]) => Math.min(b, end!) - Math.max(a, first!)));
  return { longestGapMs, transferMs: end! - first!, bytes: bytes! };
}

it.each(['ndjson', 'csv', 'parquet'])('a runs export (%s) lets other requests in while it streams', async (format) => {
  const { longestGapMs, transferMs, bytes } = await loopGapDuring(`/v1/competitions/c/runs/export?format=${format}`);
  expect(bytes).toBeGreaterThan(100_000);
  expect(longestGapMs, `transfer ${transferMs.toFixed(0)} ms`).toBeLessThan(Math.max(transferMs * 0.6, 5));
});

it("a snapshot's input document lets other requests in while it streams", async () => {
  const taken = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(taken.status).toBe(201);
  const { longestGapMs, transferMs, bytes } = await loopGapDuring(
    `/v1/competitions/c/snapshots/${taken.body.seq}/input`,
  );
  expect(bytes).toBeGreaterThan(1_000_000);
  expect(longestGapMs, `transfer ${transferMs.toFixed(0)} ms`).toBeLessThan(Math.max(transferMs * 0.6, 5));
});
