// Signed against bearer ingest alone (issue 10's 5% target), without the rest of the benchmark:
// the server from dist/, the first N batches of a size's competition (the reference by default)
// into fresh competitions, in blocks whose order of modes rotates (bench/authCompare.ts), with each
// thread's CPU time of the server read from /proc meanwhile. Each round moves by several percent on
// a shared machine: the last line pools the rounds.
//   npm run bench:auth [-- --batches N --rounds R --size 1x|2x|4x]   (BENCH_SERVER_NODE_ARGS as bench/run.ts)
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sizeNamed } from './cli.js';
import { buildCompetition, runBatches, SIZES } from './generate.js';
import { launch } from './launch.js';
import { statCpuSeconds } from './load.js';
import { BENCH_SIGNATURE_WINDOW_MS, compareAuth, poolRounds, type AuthCompare } from './authCompare.js';
import { tempDir } from '../test/support/tempDir.js';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
    size: { type: 'string', default: 'reference' },
  },
});
const batches = Number(values.batches);
const ADMIN = 'bench-admin-token-authonly';

/** CPU seconds per thread name of a process (utime + stime). */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const key = tid === String(pid) ? 'main' : name;
      out[key] = (out[key] ?? 0) + statCpuSeconds(stat);
    } catch {
      // the thread ended
    }
  }
  return out;
}

const c = buildCompetition(SIZES[sizeNamed(values.size)], 1);
const { bodies, counts } = runBatches(c, 1000);
const tmp = tempDir('authonly');
const server = await launch({
  dbPath: `${tmp.dir}/bench.db`,
  adminToken: ADMIN,
  build: 'dist',
  env: { SCORING_SIGNATURE_WINDOW_MS: String(BENCH_SIGNATURE_WINDOW_MS) },
  // As in bench/run.ts: e.g. BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
  nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
});
try {
  const results: AuthCompare[] = [];
  /** Each mode's main-thread CPU ms a batch, summed over the rounds. */
  const mainMs = { bearer: 0, presigned: 0, signed: 0 };
  for (let r = 0; r < Number(values.rounds); r++) {
    const byMode: Record<string, { wall: number; cpu: Record<string, number> }> = {};
    let at = { t: 0, cpu: {} as Record<string, number> };
    const observe = (mode: string, edge: 'start' | 'end') => {
      const own = process.cpuUsage();
      const now = { t: performance.now(), cpu: { ...threadCpu(server.pid), client: (own.user + own.system) / 1e6 } };
      if (edge === 'start') return void (at = now);
      const m = (byMode[mode] ??= { wall: 0, cpu: {} });
      m.wall += (now.t - at.t) / 1000;
      for (const [k, v] of Object.entries(now.cpu)) m.cpu[k] = (m.cpu[k] ?? 0) + v - (at.cpu[k] ?? 0);
    };
    const from = (r * batches) % (bodies.length - batches);
    const a = await compareAuth(
      server.baseUrl,
      ADMIN,
      c,
      bodies.slice(from, from + batches),
      counts.slice(from, from + batches),
      4,
      r,
      observe,
    );
    const cpu = Object.entries(byMode)
      .map(
        ([mode, m]) =>
          `${mode}: ${Object.entries(m.cpu)
            .filter(([, v]) => v > 0)
            .map(([k, v]) => `${k} ${Math.round((v / m.wall) * 100)}%`)
            .join(' ')}`,
      )
      .join('; ');
    // Server CPU per batch by mode: steadier than the rates, which move with everything else on the machine.
    const perBatch = (mode: string) => {
      const m = byMode[mode]!;
      const all = Object.entries(m.cpu).reduce((a, [k, v]) => (k === 'client' ? a : a + v), 0);
      return {
        main: ((m.cpu.main ?? 0) / batches) * 1000,
        all: (all / batches) * 1000,
        client: ((m.cpu.client ?? 0) / batches) * 1000,
      };
    };
    const cost = ['bearer', 'presigned', 'signed']
      .map((mode) => {
        const c = perBatch(mode);
        return `${mode} ${c.main.toFixed(1)} / ${c.all.toFixed(1)} (client ${c.client.toFixed(1)})`;
      })
      .join(', ');
    console.log(
      `round ${r}: server CPU ms per 1,000-run batch (main thread / all threads; the benchmark's own): ${cost}`,
    );
    console.log(
      `round ${r}: bearer ${a.bearerRunsPerSecond}, signed ${a.signedRunsPerSecond} (${a.ratio}x), presigned ${a.presignedRunsPerSecond} (${a.serverRatio}x); server threads busy (share of each mode's time): ${cpu}`,
    );
    results.push(a);
    for (const mode of ['bearer', 'presigned', 'signed'] as const) mainMs[mode] += perBatch(mode).main;
  }
  const p = poolRounds(results);
  const main = (mode: keyof typeof mainMs) => (mainMs[mode] / results.length).toFixed(1);
  console.log(
    `signed / bearer by round: ${p.rounds.map((x) => x.ratio).join(', ')}; presigned / bearer: ${p.rounds.map((x) => x.serverRatio).join(', ')}`,
  );
  // The rounds' rates move by several percent each on a shared machine; the pooled figure is the one to compare.
  console.log(
    `pooled over ${results.length} rounds: presigned / bearer ${p.serverRatio}x, signed / bearer ${p.ratio}x; ` +
      `main-thread CPU ms a batch: bearer ${main('bearer')}, presigned ${main('presigned')}, signed ${main('signed')}`,
  );
} finally {
  await server.stop();
  tmp.remove();
}
