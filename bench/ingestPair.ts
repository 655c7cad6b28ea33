// Ingest's server CPU a batch, two builds side by side (issue 41): both servers run at once, each on
// a fresh database with the reference competition set up, and every `stride`-th batch goes to one
// and then the other (the order alternating batch by batch), one batch at a time over HTTP; each
// server's CPU for the batch (all its threads, from schedstat) is taken around it. Prints each
// server's median and mean, and the median, mean and quartiles of the paired differences (B - A).
// On a loaded machine the paired difference moves far less than either figure or a rate.
//   node --import tsx bench/ingestPair.ts [--stride K] [--a ARGS] [--b ARGS]
// ARGS: node arguments of that server, space-separated; a script path first runs another build's
// dist/server.js (e.g. --a /tmp/base/dist/server.js); both default to this build.
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
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
  },
});
const c = buildCompetition(SIZES.reference, 1);
const all = runBatches(c, 1000);
const picked = all.bodies.map((_, i) => i).filter((i) => i % Number(values.stride) === 0);
const tmp = tempDir('pair');
const servers = await Promise.all(
  (['a', 'b'] as const).map(async (name) => {
    const server = await launch({
      dbPath: `${tmp.dir}/${name}.db`,
      adminToken: ADMIN,
      build: 'dist',
      env: {},
      // node takes the first path as the script (as bench/ingestProbe.ts's PROBE_SCRIPT).
      nodeArgs: values[name].split(' ').filter(Boolean),
    });
    return { name, server, key: await setup(server.baseUrl, ADMIN, c), ns: [] as number[] };
  }),
);
const ms = (ns: number) => (ns / 1e6).toFixed(2);
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((p, q) => p + q, 0) / xs.length;
try {
  for (const [k, i] of picked.entries()) {
    for (const v of k % 2 ? servers : [...servers].reverse()) {
      const before = cpuNs(v.server.pid);
      await ingest(v.server.baseUrl, v.key, [all.bodies[i]!], [all.counts[i]!], 1);
      await new Promise((resolve) => setTimeout(resolve, 5)); // the answer's last steps
      v.ns.push(cpuNs(v.server.pid) - before);
    }
  }
  const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
  for (const v of servers) console.log(`${v.name}: median ${ms(median(v.ns))} ms a batch, mean ${ms(mean(v.ns))}`);
  const d = a.ns.map((x, i) => b.ns[i]! - x).sort((p, q) => p - q);
  console.log(
    `b - a: median ${ms(median(d))} ms, mean ${ms(mean(d))}, quartiles ${ms(d[Math.floor(d.length / 4)]!)} to ` +
      `${ms(d[Math.floor((3 * d.length) / 4)]!)} (${d.length} batches)`,
  );
} finally {
  for (const v of servers) await v.server.stop();
  tmp.remove();
}
