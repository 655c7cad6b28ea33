// Warm-read load from a separate process, so the load generator takes the other core and not the
// benchmark's event loop: wrk (Debian: apt-get install wrk) when it is on the PATH, otherwise
// autocannon in a child process. The same tool loads the server and its floor.
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { LAZY_FORM_BYTES } from '../src/http/coding.js';

export type LoadTool = 'wrk' | 'autocannon';

export interface Load {
  tool: LoadTool;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  totalRequests: number;
  p50Ms: number;
  p99Ms: number;
  megabytesPerSecond: number;
  /**
   * CPU time (all threads) of the process under load over the window, seconds; where /proc can be
   * read (`withCpu`). Less swayed than requests per second by others' work on the machine.
   */
  cpuSeconds?: number;
  /**
   * CPU time of the load generator itself over the load, seconds (wrk: the benchmark's reaped
   * children on /proc; autocannon: its child's own count). Near one core's worth of the window,
   * the generator was saturated, and the rate and latency it saw were its own limit, not the
   * server's (`generatorCores`).
   */
  clientCpuSeconds?: number;
}

/** wrk when it runs (it prints its usage and exits 1 for --version), else autocannon. */
export function pickTool(wanted: string): LoadTool {
  if (wanted === 'autocannon') return 'autocannon';
  const has = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  const found = !has.error && /wrk/.test(`${has.stdout}${has.stderr}`);
  if (wanted === 'wrk' && !found) throw new Error('--load wrk: wrk is not on the PATH (apt-get install -y wrk)');
  return found ? 'wrk' : 'autocannon';
}

// wrk's summary as one JSON line (its Lua `done` hook); latencies in microseconds.
const WRK_REPORT = `done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"bytes":%d,"errors":%d,"non2xx":%d,"timeouts":%d,"p50Us":%d,"p99Us":%d}\\n',
    s.requests, s.duration, s.bytes, e.connect + e.read + e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;

const r2 = (v: number) => Math.round(v * 100) / 100;

function runWrk(
  url: string,
  connections: number,
  seconds: number,
  dir: string,
  headers: Record<string, string>,
): Promise<Load> {
  const script = join(dir, 'wrk-report.lua');
  writeFileSync(script, WRK_REPORT);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '5s', '-s', script];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  const before = reapedChildrenCpuSeconds();
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
      if (code !== 0 || !line) return reject(new Error(`wrk ${args.join(' ')} failed (${code}):\n${out}`));
      const w = JSON.parse(line) as Record<string, number>;
      if (w.errors! + w.non2xx! + w.timeouts! > 0)
        return reject(new Error(`wrk on ${url}: ${w.errors} errors, ${w.non2xx} non-2xx, ${w.timeouts} timeouts`));
      const s = w.durationUs! / 1e6;
      // Node has reaped wrk by its 'exit': its CPU time is in this process's children's count.
      const after = reapedChildrenCpuSeconds();
      resolve({
        tool: 'wrk',
        connections,
        seconds,
        requestsPerSecond: Math.round(w.requests! / s),
        totalRequests: w.requests!,
        p50Ms: r2(w.p50Us! / 1000),
        p99Ms: r2(w.p99Us! / 1000),
        megabytesPerSecond: Math.round(w.bytes! / s / 1e5) / 10,
        ...(before !== null && after !== null ? { clientCpuSeconds: r2(after - before) } : {}),
      });
    });
  });
}

interface AutocannonReply {
  ok: boolean;
  error?: string;
  result?: {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    throughput: { average: number };
    errors: number;
    non2xx: number;
    timeouts: number;
  };
  /** The child's CPU time over the load alone (process.cpuUsage, µs). */
  cpu?: { user: number; system: number };
}

function runAutocannon(
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string>,
): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./loadChild.ts', import.meta.url));
    child.once('error', reject);
    child.once('message', (m: AutocannonReply) => {
      const r = m.result;
      if (!m.ok || !r) return reject(new Error(`autocannon on ${url}: ${m.error}`));
      if (r.errors + r.non2xx + r.timeouts > 0)
        return reject(
          new Error(`autocannon on ${url}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`),
        );
      resolve({
        tool: 'autocannon',
        connections,
        seconds,
        requestsPerSecond: Math.round(r.requests.average),
        totalRequests: r.requests.total,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        megabytesPerSecond: Math.round(r.throughput.average / 1e5) / 10,
        ...(m.cpu ? { clientCpuSeconds: r2((m.cpu.user + m.cpu.system) / 1e6) } : {}),
      });
    });
    child.send({ url, connections, duration: seconds, headers });
  });
}

/** `headers` go with every request (the warm read as a browser asks: Accept-Encoding). */
export function runLoad(
  tool: LoadTool,
  url: string,
  seconds: number,
  dir: string,
  headers: Record<string, string> = {},
  connections = 32,
): Promise<Load> {
  return tool === 'wrk'
    ? runWrk(url, connections, seconds, dir, headers)
    : runAutocannon(url, connections, seconds, headers);
}

/** Two loads in one, from two windows of half the time each. Requests per second over both;
 * the latency percentiles of the worse window. */
function merge(a: Load, b: Load): Load {
  const seconds = a.seconds + b.seconds;
  const total = a.totalRequests + b.totalRequests;
  return {
    ...a,
    seconds,
    totalRequests: total,
    requestsPerSecond: Math.round(total / seconds),
    p50Ms: Math.max(a.p50Ms, b.p50Ms),
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    megabytesPerSecond:
      Math.round(((a.megabytesPerSecond * a.seconds + b.megabytesPerSecond * b.seconds) / seconds) * 10) / 10,
    cpuSeconds: a.cpuSeconds !== undefined && b.cpuSeconds !== undefined ? a.cpuSeconds + b.cpuSeconds : undefined,
    clientCpuSeconds:
      a.clientCpuSeconds !== undefined && b.clientCpuSeconds !== undefined
        ? r2(a.clientCpuSeconds + b.clientCpuSeconds)
        : undefined,
  };
}

/** The fields of a /proc `stat` line after the command name (which may hold spaces and parentheses), from the state on. */
const statFields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** utime + stime, in seconds, of a /proc `stat` line (a process's or a thread's; clock ticks of 1/100 s). */
export function statCpuSeconds(stat: string): number {
  const f = statFields(stat);
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** cutime + cstime of a /proc `stat` line: the CPU seconds of the children it has reaped. */
export function statReapedChildrenCpuSeconds(stat: string): number {
  const f = statFields(stat);
  return (Number(f[13]) + Number(f[14])) / 100;
}

/** CPU seconds of the children this process has waited for (Linux /proc); null elsewhere. */
function reapedChildrenCpuSeconds(): number | null {
  try {
    return statReapedChildrenCpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Cores the load generator kept busy over a load, or null when not recorded. One thread of wrk (or
 * autocannon's event loop) can use one core at most: at about 1 it set the pace.
 */
export const generatorCores = (l: { clientCpuSeconds?: number; seconds: number }): number | null =>
  l.clientCpuSeconds === undefined || l.seconds <= 0 ? null : Math.round((l.clientCpuSeconds / l.seconds) * 100) / 100;

/** CPU seconds of a process, all threads (Linux /proc); null elsewhere. */
function processCpuSeconds(pid: number): number | null {
  try {
    return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** A load that also records the CPU time process `pid` spent over it (`cpuSeconds`). */
export function withCpu(pid: number, load: (seconds: number) => Promise<Load>): (seconds: number) => Promise<Load> {
  return async (seconds) => {
    const before = processCpuSeconds(pid);
    const result = await load(seconds);
    const after = processCpuSeconds(pid);
    return before === null || after === null ? result : { ...result, cpuSeconds: after - before };
  };
}

/** CPU microseconds per request of a load, when recorded. */
export const cpuUsPerRequest = (l: { cpuSeconds?: number; totalRequests?: number }): number | null =>
  l.cpuSeconds === undefined || !l.totalRequests ? null : Math.round((l.cpuSeconds / l.totalRequests) * 1e7) / 10;

/** Seconds of load each side gets first, not counted: see `alternate`. */
export const WARM_UP_SECONDS = 2;

/**
 * The server and its floor loaded in turn, server-floor-floor-server, half of `seconds` each time:
 * on a shared machine the load of others drifts within seconds, and this spreads it over both.
 * Each is first loaded for WARM_UP_SECONDS, not counted: the first seconds of load on a process
 * measure its JIT compiling the request path and wrk opening its connections, not warm reads. On
 * the kept reference database (2026-12-02), the first 5 s run's p99 was 18.2 ms for the server and
 * 23.9 ms for the plain node:http floor, the runs after it 6.2-13.0 and 4.0-5.6 ms; the merged
 * p99 is the larger of the two halves, so it was the unwarmed run's.
 */
export async function alternate(
  server: (seconds: number) => Promise<Load>,
  floor: (seconds: number) => Promise<Load>,
  seconds: number,
): Promise<{ server: Load; floor: Load }> {
  const half = Math.max(1, Math.round(seconds / 2));
  await server(WARM_UP_SECONDS);
  await floor(WARM_UP_SECONDS);
  const s1 = await server(half);
  const f1 = await floor(half);
  const f2 = await floor(half);
  const s2 = await server(half);
  return { server: merge(s1, s2), floor: merge(f1, f2) };
}

/** What Chromium sends: the warm read as a dashboard in a browser makes it. */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** Response headers the floor repeats: what a client of the leaderboard sees besides the body. */
const KEPT = ['content-type', 'content-encoding', 'etag', 'vary', 'cache-control'];

export interface FloorServer {
  url: string;
  pid: number;
  headers: Record<string, string>;
  bytes: number;
  stop(): void;
}

/** One GET of `url` with `headers`, the body as sent on the wire (fetch would decompress it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, res, body: Buffer.concat(chunks) }));
      res.once('error', reject);
    }).once('error', reject);
  });
}

/**
 * Fetches `url` from the real server, asking with `headers`, and starts a plain node:http child
 * serving the very bytes it answered (compressed when the server compressed them).
 */
export async function startFloorServer(url: string, headers: Record<string, string> = {}): Promise<FloorServer> {
  let { status, res, body } = await rawGet(url, headers);
  // A large body goes out in a fast form (its ETag ends in -fast, or -pieces for the whole
  // leaderboard's gzip) until its kept form is made, off the request path, from its second read on
  // (src/http/representation.ts): the floor serves the form warm reads get.
  const lazy = () =>
    Boolean(headers['accept-encoding']) &&
    (/-(fast|pieces)"$/.test(String(res.headers.etag ?? '')) ||
      (body.length >= LAZY_FORM_BYTES && !res.headers['content-encoding']));
  for (let i = 0; i < 100 && lazy(); i++) {
    await new Promise((r) => setTimeout(r, 20));
    ({ status, res, body } = await rawGet(url, headers));
  }
  if (status !== 200) throw new Error(`floor: GET ${url} -> ${status}`);
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const v = res.headers[name];
    if (typeof v === 'string') kept[name] = v;
  }
  const child: ChildProcess = fork(new URL('./floorServer.ts', import.meta.url));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`floor server exited (${code})`)));
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.send({ body: body.toString('base64'), headers: kept });
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid!,
    headers: kept,
    bytes: body.length,
    stop: () => {
      child.removeAllListeners('exit');
      child.disconnect();
    },
  };
}
