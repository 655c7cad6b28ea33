// Two server processes on one PostgreSQL database (docs/POSTGRES.md): what a write made on one
// costs the other. On a fresh scratch database, server A takes the bench's competition; server B
// reads its leaderboard warm. Then `rounds` rounds of one miner run written to A and one
// leaderboard read on B (the peer's write, which B learns as a version change of the competition),
// and as many written to B and read on B (its own write, told exactly). Per read: the wall time
// seen here and the CPU of every thread of B between the write's answer and the read's answer,
// medians of the rounds. `npm run build` first: both servers run dist/.
//   node --import tsx bench/pgPeers.ts [--size reference|large] [--rounds N] [--prof DIR (B's CPU profile)]
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '../test/support/postgres.js';
import { SIZES, buildCompetition, extraRun, runBatches, type SizeName } from './generate.js';
import { launch, type BenchServer } from './launch.js';
import { call, cpuNs, percentile } from './measure.js';
import { COMPETITION, ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-pgpeers-0123456';
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'reference' },
    rounds: { type: 'string', default: '30' },
    prof: { type: 'string' },
  },
});
const sizeName = values.size as SizeName;
const c = buildCompetition(SIZES[sizeName], 1);
const rounds = Number(values.rounds);
const log = (m: string) => console.log(`[pgpeers] ${m}`);
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

const scratch = await createScratchDatabase('bench_peers');
const dir = mkdtempSync(join(tmpdir(), 'pgpeers-'));
const servers: BenchServer[] = [];
try {
  const start = async (nodeArgs: string[] = []) => {
    const s = await launch({
      nodeArgs,
      dbPath: join(dir, 'unused.db'),
      adminToken: ADMIN,
      build: 'dist',
      env: { DATABASE_URL: scratch.url },
    });
    servers.push(s);
    return s;
  };
  const a = await start();
  const key = await setup(a.baseUrl, ADMIN, c);
  const { bodies, counts } = runBatches(c, 1000);
  log(`ingested ${sizeName} through A in ${(await ingest(a.baseUrl, key, bodies, counts, 4)).toFixed(1)} s`);
  const b = await start(values.prof ? ['--cpu-prof', `--cpu-prof-dir=${values.prof}`] : []);
  const path = `/v1/competitions/${COMPETITION}/leaderboard`;
  const read = async () => {
    const res = await fetch(`${b.baseUrl}${path}`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${res.status}`);
  };
  await read();
  await read();
  const loop = async (label: string, writer: BenchServer, salt: number) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < rounds + 3; i++) {
      const task = c.tasks[(i * 37 + salt) % c.tasks.length]!;
      const run = extraRun(c, task, c.miners[0]!, salt + i);
      const r = await call(writer.baseUrl, `/v1/competitions/${COMPETITION}/runs`, {
        token: key,
        body: JSON.stringify({ runs: [run] }),
      });
      if (r.status >= 300) throw new Error(`POST ${r.status}: ${r.text}`);
      const before = cpuNs(b.pid);
      const t = performance.now();
      await read();
      const ms = performance.now() - t;
      const used = (cpuNs(b.pid) - before) / 1e6;
      if (i >= 3) {
        wall.push(ms);
        cpu.push(used);
      }
    }
    log(
      `${sizeName} ${label}: B's read wall median ${median(wall).toFixed(2)} ms, B's CPU median ` +
        `${median(cpu).toFixed(2)} ms (${rounds} rounds)`,
    );
  };
  await loop('written on A (a peer), read on B', a, 5000);
  await loop('written on B, read on B', b, 9000);
  await loop('written on A (a peer), read on B', a, 13000);
} finally {
  for (const s of servers) await s.stop();
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
}
