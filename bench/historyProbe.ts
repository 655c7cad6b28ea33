// The history phase's first reads (bench/history.ts) without its ingest: on a database the
// phase kept (`BENCH_KEEP_DB=1 npm run bench -- --history-only ...`, 12 competitions and their
// saved scores), a dist server (`npm run build` first) is started and
//   1. `restart`: the first read of every leaderboard, in order, as soon as it is ready (each
//      restored from its saved row: src/services/scores/saved.ts);
//   2. `released`: every competition read as a dashboard reads it (its pairs loaded, so the memory
//      budget releases the older ones: src/services/residency.ts), the server left 6 s, then the
//      first read of every older leaderboard.
// Per read: the wall time seen here, and the server's CPU between the request and its answer, of
// every thread and of the main thread alone (/proc/<pid>/task/*/schedstat, ns). Variants run in
// turns, their order alternating each round:
//   node --import tsx bench/historyProbe.ts --db PATH [--rounds N] [--variant name=ENV=V,...]
// A variant's environment goes to its server; PROBE_SCRIPT (another build's dist/server.js) and
// PROBE_NODE_ARGS (node flags, space-separated) are the probe's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildCompetition, SIZES } from './generate.js';
import { launchVariant, parseVariant } from './launch.js';
import { call } from './measure.js';
import { load1 } from './cli.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    n: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '2' },
    variant: { type: 'string', multiple: true, default: ['new='] },
  },
});
if (!values.db || !existsSync(values.db)) throw new Error('--db: a database the history phase kept');
const variants = values.variant.map(parseVariant);
const ids = Array.from({ length: Number(values.n) }, (_, i) => `history-${i + 1}`);
const hotkey = buildCompetition(SIZES.reference, 1).miners[0]!.hotkey;

function threadNs(pid: number, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // a thread gone meanwhile
  }
}
const cpu = (pid: number) => ({
  all: readdirSync(`/proc/${pid}/task`).reduce((n, tid) => n + threadNs(pid, tid), 0),
  main: threadNs(pid, String(pid)),
});

interface Read {
  wall: number;
  all: number;
  main: number;
}
async function timedRead(url: string, pid: number, path: string): Promise<Read> {
  const c0 = cpu(pid);
  const t0 = performance.now();
  await call(url, path);
  const wall = performance.now() - t0;
  const c1 = cpu(pid);
  return { wall, all: (c1.all - c0.all) / 1e6, main: (c1.main - c0.main) / 1e6 };
}

const fmt = (r: Read[]) => {
  const by = (k: keyof Read) => r.map((x) => x[k]).sort((a, b) => a - b);
  const med = (s: number[]) => s[Math.floor(s.length / 2)]!.toFixed(1);
  const max = (s: number[]) => s[s.length - 1]!.toFixed(1);
  return `wall med ${med(by('wall'))} max ${max(by('wall'))} | cpu med ${med(by('all'))} max ${max(by('all'))} | main med ${med(by('main'))} max ${max(by('main'))}`;
};

const results: Record<string, { restart: Read[]; released: Read[] }> = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    // In place: the probe only reads, and a server's shutdown saves the same scores again.
    const copy = values.db;
    const server = await launchVariant(v, copy, ADMIN);
    const url = server.baseUrl;
    try {
      const restart: Read[] = [];
      for (const id of ids) restart.push(await timedRead(url, server.pid, `/v1/competitions/${id}/leaderboard`));
      // PROBE_PAUSE_MS: a quiet gap after the first reads (to tell them apart in a profile).
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.PROBE_PAUSE_MS ?? 0)));
      for (const id of ids) {
        const base = `/v1/competitions/${id}`;
        for (const path of ['/leaderboard', '/weights', '/weights/chain', '/coverage?limit=1000', `/miners/${hotkey}`])
          await call(url, `${base}${path}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const released: Read[] = [];
      for (const id of ids.slice(0, -1))
        released.push(await timedRead(url, server.pid, `/v1/competitions/${id}/leaderboard`));
      const r = (results[v.name] ??= { restart: [], released: [] });
      r.restart.push(...restart);
      r.released.push(...released);
      console.log(`${v.name} round ${round} load ${load1()}`);
      console.log(`  restart  ${fmt(restart)}`);
      console.log(`  released ${fmt(released)}`);
      if (process.env.PROBE_VERBOSE)
        console.log(
          `  each (wall/main cpu): ${[restart, released].map((rs) => rs.map((x) => `${x.wall.toFixed(1)}/${x.main.toFixed(1)}`).join(' ')).join(' | ')}`,
        );
    } finally {
      await server.stop();
    }
  }
}
for (const [name, r] of Object.entries(results)) {
  console.log(`${name} all rounds:`);
  console.log(`  restart  ${fmt(r.restart)}`);
  console.log(`  released ${fmt(r.released)}`);
}
