// Ingest alone, against its floor in the same process (issue 41): every `stride`-th batch of the
// reference competition (or --size's; up to N of them, the QnA-heavy and the plain ones alike)
// sent by 4 clients to the compiled server (`npm run build` first), and the same batches inserted
// straight into SQLite (floors.ts rawInsert) just before and just after; variants taken in turns,
// their order reversed every round (A B B A ...). Prints each run's rate, floor, ratio, and the server's CPU
// (all its threads, and its main thread alone, from /proc) and wall time per batch, then each
// variant's median ratio. The main thread's CPU is what bounds the rate when work moves to another
// thread (the whole process's would not show it).
//   node --import tsx bench/ingestProbe.ts [--batches N] [--stride K] [--rounds R] [--clients C] [--size S]
//     [--engine sqlite|postgres] [--variant name=ENV=V,ENV2=V ...]
// A variant's environment goes to its server; two keys are the probe's: PROBE_NODE_ARGS (node
// flags, space-separated) and PROBE_SCRIPT (another build's dist/server.js, to compare builds).
// BENCH_SERVER_NODE_ARGS passes flags to every server (e.g. --cpu-prof --cpu-prof-dir=DIR);
// BENCH_SERVER_OUTPUT=<prefix> saves each server's output.
// --engine postgres: each run's server on a scratch PostgreSQL database (DATABASE_URL, storage.ts's
// postgresStorage on PG_TEST_URL, else 127.0.0.1:5432) and the floor PostgreSQL's raw insert
// (pgFloors.ts pgRawInsert into a second scratch database), as `npm run bench -- --engine postgres`
// takes them; both databases dropped after the run.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, runBatches, type SizeName } from './generate.js';
import { tempDir } from '../test/support/tempDir.js';
import { launchVariant, parseVariant } from './launch.js';
import { load1 } from './cli.js';
import { bracket } from './floors.js';
import { postgresStorage, sqliteStorage } from './storage.js';
import { ingest, setup } from './phases.js';

const ADMIN = `bench-admin-token-${process.pid}`;
const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '120' },
    stride: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '1' },
    clients: { type: 'string', default: '4' },
    size: { type: 'string', default: 'reference' },
    engine: { type: 'string', default: 'sqlite' },
    variant: { type: 'string', multiple: true, default: ['base='] },
  },
});
if (values.engine !== 'sqlite' && values.engine !== 'postgres')
  throw new Error(`--engine sqlite|postgres, not ${values.engine}`);
const variants = values.variant.map(parseVariant);
const c = buildCompetition(SIZES[values.size as SizeName], 1);
const all = runBatches(c, 1000);
const n = Number(values.batches);
const stride = Number(values.stride);
const picked = all.bodies
  .map((_, i) => i)
  .filter((i) => i % stride === 0)
  .slice(0, n);
const bodies = picked.map((i) => all.bodies[i]!);
const counts = picked.map((i) => all.counts[i]!);
const total = counts.reduce((a, b) => a + b, 0);
const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const results: Record<string, number[]> = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    const tmp = tempDir('probe');
    const storage = values.engine === 'postgres' ? await postgresStorage(tmp.dir) : sqliteStorage(tmp.dir);
    try {
      const floorOnce = async () => (await storage.insertFloor('bench', bodies, false)).sequence;
      const before = await floorOnce();
      const env = { ...v.env, ...storage.serverEnv };
      const server = await launchVariant({ ...v, env }, storage.dbPath, ADMIN, nodeArgs);
      const key = await setup(server.baseUrl, ADMIN, c);
      const cpu0 = serverCpu(server.pid);
      const main0 = serverCpu(server.pid, server.pid);
      const wait0 = runqWait(server.pid);
      const client0 = process.cpuUsage();
      const seconds = await ingest(server.baseUrl, key, bodies, counts, Number(values.clients));
      const cpu1 = serverCpu(server.pid);
      const main1 = serverCpu(server.pid, server.pid);
      const wait1 = runqWait(server.pid);
      const client = process.cpuUsage(client0);
      await server.stop();
      if (process.env.BENCH_SERVER_OUTPUT)
        writeFileSync(`${process.env.BENCH_SERVER_OUTPUT}-${v.name}-${round}.log`, server.output());
      const after = await floorOnce();
      const floor = bracket(before, after).runsPerSecond;
      const rate = Math.round(total / seconds);
      const ratio = Math.round((rate / floor) * 1000) / 1000;
      (results[v.name] ??= []).push(ratio);
      console.log(
        `${v.name}: ${rate} runs/s, floor ${floor} (${before.runsPerSecond}/${after.runsPerSecond}), ratio ${ratio}, ` +
          `server cpu ${(((cpu1 - cpu0) / bodies.length) * 1000).toFixed(1)} ms/batch ` +
          `(main thread ${(((main1 - main0) / bodies.length) * 1000).toFixed(1)}, waiting for a core ${((wait1 - wait0) / bodies.length / 1e6).toFixed(1)}; the clients' ${((client.user + client.system) / bodies.length / 1000).toFixed(1)}), wall ${((seconds / bodies.length) * 1000).toFixed(1)} ms/batch, load ${load1()}`,
      );
    } finally {
      await storage.close();
      tmp.remove();
    }
  }
}
for (const [name, r] of Object.entries(results)) {
  const s = [...r].sort((a, b) => a - b);
  console.log(`${name}: median ratio ${s[Math.floor(s.length / 2)]} of ${s.join(' ')}`);
}

/** utime+stime of a process, or of one of its threads (the main thread's id is the pid), seconds (from /proc). */
/** Nanoseconds the main thread has spent runnable but waiting for a core (schedstat's second field). */
function runqWait(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]);
}

function serverCpu(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
