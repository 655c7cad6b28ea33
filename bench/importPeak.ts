// The import phase's peak memory without the whole bench: a dist server (`npm run build` first) on a
// fresh database is given the benchmark competition (setup and ingest, as bench/run.ts), its reads
// are made warm (each read path, whole and as a browser asks, some hundreds of times), then the
// import phase's 30 MB session import runs under a reader loop (bench/importPhase.ts), and the
// server's VmHWM and VmRSS (/proc/<pid>/status) are read before and after it, with a 50 ms sampler
// of VmRSS during it. Variants run in turns, their order alternating each round:
//   node --import tsx bench/importPeak.ts [--size reference] [--mb 30] [--rounds 3] [--variant name=ENV=V,...]
// A variant's environment goes to its server; PROBE_SCRIPT (another build's dist/server.js) and
// PROBE_NODE_ARGS (node flags, space-separated) are the probe's, as in bench/historyProbe.ts.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tempDir } from '../test/support/tempDir.js';
import { load1 } from './cli.js';
import { buildCompetition, runBatches, SIZES, type SizeName } from './generate.js';
import { importUnderReads } from './importPhase.js';
import { launchVariant, parseVariant } from './launch.js';
import { cpuNs } from './measure.js';
import { spawnSync } from 'node:child_process';
import { COMPETITION, ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const BROWSER = { 'accept-encoding': 'gzip, deflate, br, zstd' };
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'reference' },
    rounds: { type: 'string', default: '3' },
    /** The import's size in MB; the size's own (30 at reference) unless given. */
    mb: { type: 'string' },
    /** Seconds of wrk (1 thread, 32 connections) on the warm leaderboard before the import: req/s and server CPU a request. */
    'warm-seconds': { type: 'string', default: '0' },
    variant: { type: 'string', multiple: true, default: ['new='] },
  },
});
const size = SIZES[values.size as SizeName];
if (!size) throw new Error(`--size: one of ${Object.keys(SIZES).join(', ')}`);
const variants = values.variant.map(parseVariant);

const c = buildCompetition(size, 1);
const { bodies, counts } = runBatches(c, 1000);

const statusMb = (pid: number, field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
};
const memory = (pid: number) => ({
  hwm: statusMb(pid, 'VmHWM'),
  rss: statusMb(pid, 'VmRSS'),
  anon: statusMb(pid, 'RssAnon'),
  file: statusMb(pid, 'RssFile'),
});
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PROBE_SMAPS=1: resident MB of the brk heap (glibc's main arena), of anonymous mappings by size class, and of files. */
function smaps(pid: number): string {
  const parts: Record<string, number> = {};
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [a, b] = line
        .split(' ')[0]!
        .split('-')
        .map((h) => parseInt(h, 16)) as [number, number];
      const size = (b - a) / 1048576;
      const path = head[1]!;
      name =
        path === '[heap]'
          ? 'brk'
          : path === ''
            ? size >= 60
              ? 'anon>=60MB'
              : size >= 1
                ? 'anon1-60MB'
                : 'anon<1MB'
            : path.startsWith('/')
              ? 'file'
              : path;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) parts[name] = (parts[name] ?? 0) + Number(rss[1]) / 1024;
  }
  return Object.entries(parts)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
}

interface Turn {
  before: ReturnType<typeof memory>;
  after: ReturnType<typeof memory>;
  sampledMax: number;
  idle: ReturnType<typeof memory>;
  commitSeconds: number;
  p99Ms: number;
  maxMs: number;
}
const results: Record<string, Turn[]> = {};
const base = `/v1/competitions/${COMPETITION}`;
const readPaths = [`${base}/leaderboard`, `${base}/weights`, `${base}/miners/${c.miners[1]!.hotkey}`];

for (let round = 0; round < Number(values.rounds); round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    const tmp = tempDir('import-peak');
    const server = await launchVariant(v, `${tmp.dir}/bench.db`, ADMIN);
    const url = server.baseUrl;
    try {
      const key = await setup(url, ADMIN, c);
      const ingestCpu = cpuNs(server.pid);
      await ingest(url, key, bodies, counts, 4);
      /** Server CPU (every thread) a batch of the ingest, ms. */
      const ingestMs = (cpuNs(server.pid) - ingestCpu) / 1e6 / bodies.length;
      // Warm: every read the bench's warm phases make, whole and compressed, 8 at a time.
      const warmPaths = [...readPaths, `${base}/weights/chain`, `${base}/coverage?limit=1000`];
      for (const headers of [{}, BROWSER])
        for (const path of warmPaths)
          await Promise.all(
            Array.from({ length: 8 }, async () => {
              for (let i = 0; i < 40; i++) await (await fetch(`${url}${path}`, { headers })).arrayBuffer();
            }),
          );
      let warm = '';
      const seconds = Number(values['warm-seconds']);
      if (seconds > 0) {
        const cpu0 = cpuNs(server.pid);
        const wrk = spawnSync('wrk', ['-t1', '-c32', `-d${seconds}s`, `${url}${base}/leaderboard`], {
          encoding: 'utf8',
        });
        const cpu = cpuNs(server.pid) - cpu0;
        const requests = Number(/(\d+) requests in/.exec(wrk.stdout)?.[1] ?? NaN);
        const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(wrk.stdout)?.[1] ?? '0';
        const transfer = /Transfer\/sec:\s+(\S+)/.exec(wrk.stdout)?.[1] ?? '?';
        warm = ` | warm ${Math.round(requests / seconds)} req/s (${transfer}/s, ${non2xx} not 2xx), ${(cpu / 1e3 / requests).toFixed(1)} µs CPU a request`;
      }
      await pause(2000);
      const before = memory(server.pid);
      const smapsBefore = process.env.PROBE_SMAPS ? smaps(server.pid) : '';
      let sampledMax = 0;
      const t0 = performance.now();
      const startedAt = new Date().toISOString();
      /** PROBE_TIMELINE=1: VmRSS and RssAnon every 250 ms of the import, printed after it. */
      const timeline: string[] = [];
      const sampler = setInterval(() => {
        const rss = statusMb(server.pid, 'VmRSS');
        sampledMax = Math.max(sampledMax, rss);
        const ms = performance.now() - t0;
        if (timeline.length < ms / 250)
          timeline.push(`${(ms / 1000).toFixed(2)}s ${rss}/${statusMb(server.pid, 'RssAnon')}`);
      }, 50);
      const imp = await importUnderReads(url, ADMIN, COMPETITION, readPaths, Number(values.mb ?? size.importMb));
      clearInterval(sampler);
      if (process.env.PROBE_TIMELINE)
        console.log(
          `  from ${startedAt}: upload ${imp.uploadSeconds} s, then commit ${imp.commitSeconds} s; rss/anon: ${timeline.join(', ')}`,
        );
      const after = memory(server.pid);
      await pause(3000); // the worker stops 1 s after its last job
      const idle = memory(server.pid);
      if (process.env.PROBE_SMAPS) console.log(`  smaps before: ${smapsBefore}\n  smaps idle:   ${smaps(server.pid)}`);
      const t: Turn = {
        before,
        after,
        sampledMax,
        idle,
        commitSeconds: imp.commitSeconds,
        p99Ms: imp.reads.p99Ms,
        maxMs: imp.reads.maxMs,
      };
      (results[v.name] ??= []).push(t);
      // PROBE_GREP: the server's output lines that match it (a scratch build's own reports).
      if (process.env.PROBE_GREP)
        for (const l of server.output().split('\n')) if (l.includes(process.env.PROBE_GREP)) console.log(`  ${l}`);
      console.log(
        `${v.name} round ${round} load ${load1()}: before hwm ${before.hwm} rss ${before.rss} (anon ${before.anon}) | ` +
          `after hwm ${after.hwm} (+${(after.hwm - before.hwm).toFixed(1)} over hwm, +${(after.hwm - before.rss).toFixed(1)} over rss) ` +
          `sampled max ${sampledMax} | idle rss ${idle.rss} | commit ${imp.commitSeconds} s, reads p99 ${imp.reads.p99Ms} max ${imp.reads.maxMs} ms` +
          ` | ingest ${ingestMs.toFixed(1)} ms CPU a batch${warm}`,
      );
    } finally {
      await server.stop();
      tmp.remove();
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, ts] of Object.entries(results)) {
  console.log(
    `${name} medians over ${ts.length}: hwm before ${median(ts.map((t) => t.before.hwm))}, after ${median(ts.map((t) => t.after.hwm))}, ` +
      `increment over hwm ${median(ts.map((t) => t.after.hwm - t.before.hwm)).toFixed(1)}, over rss ${median(ts.map((t) => t.after.hwm - t.before.rss)).toFixed(1)}, ` +
      `reads p99 ${median(ts.map((t) => t.p99Ms))} ms, commit ${median(ts.map((t) => t.commitSeconds))} s`,
  );
}
