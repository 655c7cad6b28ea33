// Cold reads after a write, on the real server, with the server's own CPU per read: the bench's
// cold phase (bench/phases.ts `coldReads`) in a loop long enough to profile.
//   node --import tsx bench/coldLoop.ts --size reference|large [--db PATH] [--rounds N] [--prof DIR]
//     [--accept ACCEPT_ENCODING] [--node-args 'FLAGS'] [--output FILE (the server's output)]
// The first call at a size ingests the bench's competition into --db (kept; later calls copy it);
// then, on a fresh copy, a dist server (`npm run build` first) answers `rounds` rounds of one
// miner run then one leaderboard read, and as many of one baseline run then one read. Per read:
// the wall time seen by this process and the CPU time of every thread of the server between the
// write's answer and the read's (/proc/<pid>/task/*/schedstat, in ns), median of the rounds.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, extraRun, type SizeName } from './generate.js';
import { launch } from './launch.js';
import { call, cpuNs, percentile } from './measure.js';
import { COMPETITION } from './phases.js';
import { referenceDatabase } from './referenceDb.js';

const ADMIN = 'bench-admin-token-coldloop-0123';
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'reference' },
    db: { type: 'string' },
    rounds: { type: 'string', default: '40' },
    prof: { type: 'string' },
    accept: { type: 'string' },
    'node-args': { type: 'string' },
    output: { type: 'string' },
  },
});
const sizeName = values.size as SizeName;
const size = SIZES[sizeName];
const c = buildCompetition(size, 1);
const db = values.db ?? `/tmp/coldloop-${sizeName}.db`;
const rounds = Number(values.rounds);
const log = (m: string) => console.log(`[coldloop] ${m}`);

async function main(): Promise<void> {
  const key = await referenceDatabase(db, c, ADMIN, log, values.output);
  const copy = `${db}.run`;
  for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  copyFileSync(db, copy);
  const extra = (values['node-args'] ?? '').split(' ').filter(Boolean);
  const nodeArgs = values.prof
    ? ['--cpu-prof', '--cpu-prof-interval=200', `--cpu-prof-dir=${values.prof}`, ...extra]
    : extra;
  const server = await launch({ dbPath: copy, adminToken: ADMIN, build: 'dist', nodeArgs });
  const url = server.baseUrl;
  const path = `/v1/competitions/${COMPETITION}/leaderboard`;
  const headers: Record<string, string> = values.accept ? { 'accept-encoding': values.accept } : {};
  const get = async () => {
    const res = await fetch(`${url}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${res.status}`);
  };
  try {
    await get();
    const spans: { label: string; from: number; to: number }[] = [];
    const loop = async (label: string, miner: boolean, salt: number) => {
      const wall: number[] = [];
      const from = Number(process.hrtime.bigint() / 1000n);
      const cpu: number[] = [];
      for (let i = 0; i < rounds + 5; i++) {
        const task = c.tasks[(i * 37 + salt) % c.tasks.length]!;
        const run = miner
          ? extraRun(c, task, c.miners[0]!, salt + i)
          : {
              ...extraRun(c, task, c.miners[0]!, salt + i),
              kind: 'baseline',
              minerHotkey: undefined,
              runId: `b:x:${salt + i}`,
            };
        await call(url, `/v1/competitions/${COMPETITION}/runs`, { token: key, body: JSON.stringify({ runs: [run] }) });
        const before = cpuNs(server.pid);
        const t = performance.now();
        await get();
        const ms = performance.now() - t;
        const used = (cpuNs(server.pid) - before) / 1e6;
        if (i >= 5) {
          wall.push(ms);
          cpu.push(used);
        }
      }
      spans.push({ label, from, to: Number(process.hrtime.bigint() / 1000n) });
      const med = (xs: number[]) =>
        percentile(
          [...xs].sort((a, b) => a - b),
          0.5,
        ).toFixed(2);
      const q = (xs: number[], at: number) =>
        percentile(
          [...xs].sort((a, b) => a - b),
          at,
        ).toFixed(2);
      log(
        `${sizeName} ${label}: wall median ${med(wall)} ms, server CPU median ${med(cpu)} ms ` +
          `(quartiles ${q(cpu, 0.25)}-${q(cpu, 0.75)}, ${rounds} rounds)`,
      );
    };
    await loop('one run', true, 5000);
    await loop('baseline', false, 9000);
    // Each loop's span on the monotonic clock in µs, as the profiles' sample times are.
    if (values.prof) {
      mkdirSync(values.prof, { recursive: true });
      writeFileSync(`${values.prof}/spans.json`, JSON.stringify(spans));
    }
  } finally {
    if (values.output) writeFileSync(values.output, server.output());
    await server.stop();
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  }
  log(`load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
}

await main();
