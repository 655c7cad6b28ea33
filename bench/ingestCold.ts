// The bench's cold phase in the server life it runs in: a fresh database, the competition set up
// and ingested over HTTP (4 clients × 1,000-run batches), then bench/run.ts's cold reads in its
// order (leaderboard after a one-run write, weights, a miner, leaderboard after a baseline run;
// `coldRounds` each), then `--extra` more rounds of the first and the last, as bench/coldLoop.ts
// times them on a fresh server. Per read: the wall time of the GET through fetch, the server's CPU
// (every thread, schedstat) from the write's answer to the read's, and, with --gc (the server
// started with --trace-gc), the collections logged in that window and their pause; with --opt
// (--trace-opt --trace-deopt) the functions TurboFan compiled and deoptimized in it.
//   node --import tsx bench/ingestCold.ts --size reference|large [--extra N] [--gc] [--opt]
//     [--rounds (each read)] [--node-args=FLAGS] [--script OTHER/dist/server.js] [--db PATH]
//     [--output FILE (the server's output, each read's window marked)] [--prof DIR [--prime]]
//     [--fetch]
// --script runs another build's server (its path put before this checkout's, so node runs it).
// --prof: a CPU profile of the server and spans.json (each phase's span on the profile's clock);
// --prime computes the whole scores before a quiet second, out of the phases' spans.
// --fetch times each read through fetch, its body decoded (as the bench did before 2026-12-06 14:00),
// instead of to the answer's last byte (bench/measure.ts timedRead, as the bench does now).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, extraRun, runBatches, type SizeName } from './generate.js';
import { launch } from './launch.js';
import { call, cpuNs, percentile, timed, timedRead } from './measure.js';
import { COMPETITION, ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-ingestcold-0123';
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'reference' },
    db: { type: 'string', default: '/tmp/ingestcold.db' },
    extra: { type: 'string', default: '40' },
    gc: { type: 'boolean', default: false },
    opt: { type: 'boolean', default: false },
    rounds: { type: 'boolean', default: false },
    script: { type: 'string' },
    'node-args': { type: 'string' },
    output: { type: 'string' },
    prof: { type: 'string' },
    prime: { type: 'boolean', default: false },
    fetch: { type: 'boolean', default: false },
  },
});
const sizeName = values.size as SizeName;
const c = buildCompetition(SIZES[sizeName], 1);
const db = values.db;
const log = (m: string) => console.log(`[ingestcold] ${m}`);

/** Each phase's span (--prof: written beside the profiles, spans.json). */
const spans: { label: string; from: number; to: number }[] = [];
/** Where each read's window starts in the server's output, with its label (--output). */
const marks: [number, string][] = [];

interface Read {
  wall: number;
  cpu: number;
  /** The main thread's alone. */
  main: number;
  gcs: number;
  gcMs: number;
  heap: number;
  opts: number;
  deopts: number;
}

/** The main thread's CPU time, ns. */
const mainNs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);

const GC_LINE =
  /(Scavenge|Mark-Compact[^0-9]*|Minor Mark-Compact)\s+([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB, ([\d.]+) \//g;

async function main(): Promise<void> {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const extraArgs = (values['node-args'] ?? '').split(' ').filter(Boolean);
  const nodeArgs = [
    ...(values.gc ? ['--trace-gc'] : []),
    ...(values.opt ? ['--trace-opt', '--trace-deopt'] : []),
    ...(values.prof ? ['--cpu-prof', '--cpu-prof-interval=200', `--cpu-prof-dir=${values.prof}`] : []),
    ...extraArgs,
    ...(values.script ? [values.script] : []),
  ];
  const server = await launch({ dbPath: db, adminToken: ADMIN, build: 'dist', nodeArgs });
  const url = server.baseUrl;
  const base = `/v1/competitions/${COMPETITION}`;
  try {
    const key = await setup(url, ADMIN, c);
    const { bodies, counts } = runBatches(c, 1000);
    const s = await ingest(url, key, bodies, counts, 4);
    bodies.length = 0;
    log(`ingested in ${s.toFixed(1)} s`);
    await call(url, base);
    // --prime: the whole scores computed before the pause, out of the profile's window.
    if (values.prime) await call(url, `${base}/leaderboard`);
    // A quiet second: in a profile (--prof), the cold phase starts after the last long idle stretch.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const read = async (path: string, miner: boolean, salt: number, i: number): Promise<Read> => {
      const task = c.tasks[(i * 37 + salt) % c.tasks.length]!;
      const run = extraRun(c, task, miner ? c.miners[0]! : null, salt + i);
      await call(url, `${base}/runs`, { token: key, body: JSON.stringify({ runs: [run] }) });
      const mark = server.output().length;
      marks.push([mark, `==== read ${path.split('/').pop()} ${salt + i}`]);
      const before = cpuNs(server.pid);
      const mainBefore = mainNs(server.pid);
      const wall = values.fetch ? await timed(() => call(url, path)) : await timedRead(url, path);
      const cpu = (cpuNs(server.pid) - before) / 1e6;
      const main = (mainNs(server.pid) - mainBefore) / 1e6;
      let gcs = 0;
      let gcMs = 0;
      let heap = 0;
      const out = server.output().slice(mark);
      const opts = out.split('[completed ').length - 1;
      const deopts = out.split('[bailout ').length - 1;
      for (const m of out.matchAll(GC_LINE)) {
        gcs += 1;
        gcMs += Number(m[6]);
        heap = Number(m[4]);
      }
      return { wall, cpu, main, gcs, gcMs, heap, opts, deopts };
    };
    const med = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        0.5,
      );
    const phase = async (label: string, path: string, miner: boolean, salt: number, rounds: number, skip = 0) => {
      const reads: Read[] = [];
      const from = process.hrtime.bigint() / 1000n;
      for (let i = 0; i < rounds; i++) reads.push(await read(path, miner, salt, i));
      // The phase's span on the monotonic clock in µs, as a .cpuprofile's sample times are.
      spans.push({ label, from: Number(from), to: Number(process.hrtime.bigint() / 1000n) });
      const kept = reads.slice(skip);
      const sum = (f: (r: Read) => number) => kept.reduce((a, r) => a + f(r), 0);
      log(
        `${label}: wall median ${med(kept.map((r) => r.wall)).toFixed(2)} ms, CPU median ${med(kept.map((r) => r.cpu)).toFixed(2)} ms, ` +
          `mean ${(sum((r) => r.cpu) / kept.length).toFixed(2)}, main thread mean ${(sum((r) => r.main) / kept.length).toFixed(2)}` +
          (values.gc
            ? `, GCs ${sum((r) => r.gcs)} taking ${sum((r) => r.gcMs).toFixed(1)} ms over ${kept.length} reads`
            : ''),
      );
      if (values.rounds)
        log(
          `  rounds: ${reads.map((r) => `${r.wall.toFixed(1)}/${r.cpu.toFixed(1)}${r.gcs ? `(gc${r.gcs}:${r.gcMs.toFixed(1)}@${r.heap})` : ''}${r.opts + r.deopts ? `[o${r.opts}d${r.deopts}]` : ''}`).join(' ')}`,
        );
    };
    const rounds = c.size.coldRounds;
    await phase('bench leaderboard', `${base}/leaderboard`, true, 1000, rounds);
    await phase('bench weights', `${base}/weights`, true, 2000, rounds);
    await phase('bench miner', `${base}/miners/${c.miners[0]!.hotkey}`, true, 3000, rounds);
    await phase('bench leaderboard after baseline', `${base}/leaderboard`, false, 4000, rounds);
    const extra = Number(values.extra);
    if (extra > 0) {
      await phase('then leaderboard', `${base}/leaderboard`, true, 5000, extra + 5, 5);
      await phase('then leaderboard after baseline', `${base}/leaderboard`, false, 9000, extra + 5, 5);
    }
  } finally {
    if (values.prof) {
      mkdirSync(values.prof, { recursive: true });
      writeFileSync(`${values.prof}/spans.json`, JSON.stringify(spans));
    }
    if (values.output) {
      const out = server.output();
      let at = 0;
      const parts: string[] = [];
      for (const [m, label] of marks) {
        parts.push(out.slice(at, m), `${label}\n`);
        at = m;
      }
      parts.push(out.slice(at));
      writeFileSync(values.output, parts.join(''));
    }
    await server.stop();
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  }
}

await main();
