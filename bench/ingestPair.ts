// Ingest's server CPU a batch, two builds side by side (issue 41): both servers run at once, each on
// a fresh database with the reference competition set up, and every `stride`-th batch goes to one
// and then the other (the order alternating batch by batch), one batch at a time over HTTP; each
// server's CPU for the batch is taken around it from schedstat: all its threads, and its main
// thread alone (what bounds the rate, docs/PERFORMANCE.md), and the batch's wall time as the client
// saw it. `--passes P` runs it P times on fresh servers, the two builds launched in the other order
// each pass: the server launched second read 0.35 ± 0.12 ms a batch cheaper on its main thread than
// the first, the same build on both (2026-12-07). Prints, for each measure, each server's mean (±
// its standard error), median and 10 %-trimmed mean, and the same of the paired differences (B - A).
// On a loaded machine the paired difference moves far less than either figure or a rate.
//   node --import tsx bench/ingestPair.ts [--stride K] [--passes P] [--a ARGS] [--b ARGS]
// ARGS: node arguments of that server, space-separated; a script path first runs another build's
// dist/server.js (e.g. --a /tmp/base/dist/server.js); both default to this build.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, runBatches } from './generate.js';
import { tempDir } from '../test/support/tempDir.js';
import { launch } from './launch.js';
import { cpuNs } from './measure.js';
import { ingest, setup } from './phases.js';

const ADMIN = `bench-admin-token-${process.pid}`;
const { values } = parseArgs({
  options: {
    stride: { type: 'string', default: '1' },
    passes: { type: 'string', default: '1' },
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
  },
});
const c = buildCompetition(SIZES.reference, 1);
const all = runBatches(c, 1000);
const picked = all.bodies.map((_, i) => i).filter((i) => i % Number(values.stride) === 0);
const BUILDS = ['a', 'b'] as const;
const MEASURES = ['all threads', 'main thread', 'wall'] as const;
type Build = (typeof BUILDS)[number];
type Measure = (typeof MEASURES)[number];
/** Nanoseconds a batch, by build and measure, batch by batch over every pass. */
const taken = Object.fromEntries(BUILDS.map((b) => [b, Object.fromEntries(MEASURES.map((m) => [m, [] as number[]]))]));
const series = (b: Build, m: Measure) => taken[b]![m]!;

/** The main thread's CPU (its id is the pid). */
const mainNs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);

function summary(xs: number[]): string {
  const n = xs.length;
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  const mean = xs.reduce((p, q) => p + q, 0) / n;
  const sd = Math.sqrt(xs.reduce((p, q) => p + (q - mean) ** 2, 0) / (n - 1));
  const s = [...xs].sort((p, q) => p - q);
  const kept = s.slice(Math.floor(n * 0.1), Math.ceil(n * 0.9));
  const trimmed = kept.reduce((p, q) => p + q, 0) / kept.length;
  return `mean ${ms(mean)} ± ${ms(sd / Math.sqrt(n))} ms, median ${ms(s[Math.floor(n / 2)]!)}, trimmed ${ms(trimmed)}`;
}

for (let pass = 0; pass < Number(values.passes); pass++) {
  const tmp = tempDir('pair');
  const order = pass % 2 ? [...BUILDS].reverse() : BUILDS;
  const servers: { name: Build; server: Awaited<ReturnType<typeof launch>>; key: string }[] = [];
  try {
    for (const name of order) {
      const server = await launch({
        dbPath: `${tmp.dir}/${name}.db`,
        adminToken: ADMIN,
        build: 'dist',
        env: {},
        // node takes the first path as the script (as bench/ingestProbe.ts's PROBE_SCRIPT).
        nodeArgs: values[name].split(' ').filter(Boolean),
      });
      servers.push({ name, server, key: '' });
    }
    for (const v of servers) v.key = await setup(v.server.baseUrl, ADMIN, c);
    for (const [k, i] of picked.entries()) {
      for (const v of k % 2 ? servers : [...servers].reverse()) {
        const pid = v.server.pid;
        const [all0, main0, wall0] = [cpuNs(pid), mainNs(pid), performance.now()];
        await ingest(v.server.baseUrl, v.key, [all.bodies[i]!], [all.counts[i]!], 1);
        const wall = (performance.now() - wall0) * 1e6;
        await new Promise((resolve) => setTimeout(resolve, 5)); // the answer's last steps
        series(v.name, 'all threads').push(cpuNs(pid) - all0);
        series(v.name, 'main thread').push(mainNs(pid) - main0);
        series(v.name, 'wall').push(wall);
      }
    }
  } finally {
    for (const v of servers) await v.server.stop();
    tmp.remove();
  }
}
for (const m of MEASURES) {
  for (const b of BUILDS) console.log(`${m}, ${b}: ${summary(series(b, m))}`);
  const d = series('b', m).map((x, i) => x - series('a', m)[i]!);
  console.log(`${m}, b - a: ${summary(d)} (${d.length} batches)`);
}
