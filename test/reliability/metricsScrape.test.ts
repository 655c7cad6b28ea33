// /metrics is open to anyone and counted by no rate limit (docs/SECURITY.md): what one scrape costs
// the server is what an anonymous client can make it spend, as often as it likes. Here a client
// first makes every series of http_request_duration_seconds it can (every path with every method
// Node parses, refused or not), then scrapes, asking for each encoding a client may ask for. The
// server's CPU time is read from /proc/<pid>/stat, as test/reliability/doorSignatures.test.ts does.
import { Agent, METHODS, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { statCpuSeconds } from '../../bench/load.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import openapi from '../../openapi/openapi.json' with { type: 'json' };

const SCRAPES = 200;
/**
 * The bound: 12 ms of server CPU a scrape, compression included, with every series an anonymous
 * client can make (about 310 KB). Rendered by prom-client and compressed at the API's levels, such a
 * scrape cost 15-20 ms as it is, 20-24 ms gzipped, 22-25 ms as br; rendered here and compressed at
 * the fastest levels, 4-6 ms each way, on a machine other suites kept busy (2026-12-07). Most of what
 * is left is the writing of the bytes and prom-client's process metrics. The bound leaves twice that:
 * this machine's CPU time for the same work has been seen to double under a full CI run
 * (doorSignatures.test.ts), and the regression it guards costs 15 ms and more.
 */
const CPU_MS = 12;
/** Measured again when over the bound, up to twice: other suites crowd the two cores (doorSignatures.test.ts). */
const MEASURED = { timeout: 180_000, retry: 2 };

let server: ServerProcess | undefined;
afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

const cpuSeconds = (pid: number) => statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** One request on `agent`: its status and the bytes of its body. */
function send(
  agent: Agent,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server!.port, method, path, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode!, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every route's path, its parameters filled with `id`, and a path no route serves. */
const paths = (id: string) => [
  ...Object.keys(openapi.paths)
    .filter((p) => !p.endsWith('/events'))
    .map((p) => p.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'seq' || name === 'n' ? '1' : id))),
  `/no/such/${id}`,
];

it.runIf(process.platform === 'linux')(
  `an anonymous /metrics scrape, after the client made every series it can, costs the server under ${CPU_MS} ms of CPU`,
  MEASURED,
  async () => {
    const dir = tempDir('metrics-scrape');
    server = await startServer({ dbPath: join(dir.dir, 'metrics.db') });
    const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    await fetch(`${server.baseUrl}/v1/competitions/c`, { method: 'PUT', headers: admin, body: '{"name":"c"}' });

    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    // Every method Node's parser takes (CONNECT is another protocol), on every path, anonymous.
    const jobs = ['c', 'nope'].flatMap((id) =>
      paths(id).flatMap((path) => METHODS.filter((m) => m !== 'CONNECT').map((method) => ({ method, path }))),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < jobs.length) {
          const { method, path } = jobs[next++]!;
          await send(agent, method, path);
        }
      }),
    );

    const measured: Record<string, { ms: number; kb: number }> = {};
    for (const encoding of ['identity', 'gzip', 'br']) {
      const headers = { 'accept-encoding': encoding };
      for (let i = 0; i < 20; i++) await send(agent, 'GET', '/metrics', headers); // warm-up
      const before = cpuSeconds(server.pid);
      let bytes = 0;
      for (let i = 0; i < SCRAPES; i++) {
        const res = await send(agent, 'GET', '/metrics', headers);
        expect(res.status).toBe(200);
        bytes += res.bytes;
      }
      measured[encoding] = {
        ms: Number((((cpuSeconds(server.pid) - before) / SCRAPES) * 1e3).toFixed(2)),
        kb: Math.round(bytes / SCRAPES / 1024),
      };
    }
    agent.destroy();
    console.log(`[metricsScrape] server CPU a scrape (ms) and its size on the wire (KiB): ${JSON.stringify(measured)}`);
    for (const [encoding, { ms }] of Object.entries(measured))
      expect([encoding, ms < CPU_MS]).toEqual([encoding, true]);
  },
);
