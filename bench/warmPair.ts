// Warm kept reads of several builds at once: each build's server loaded by a wrk of its own over
// the same seconds, so whatever else loads the machine falls on all of them alike, and the server
// CPU a request of each is compared within a round (paired) rather than across rounds taken minutes
// apart. For A/B of the warm read's CPU on a shared, noisy machine (bench/pgWarm.ts takes them in
// turns, and sees the floor).
//   node --import tsx bench/warmPair.ts [--engine postgres|sqlite] [--db NAME] [--rounds N]
//     [--seconds S] [--connections C] [--path leaderboard|weights] --variant name=PATH/dist/server.js ...
// The data is bench/pgWarm.ts's (run it once with the same --engine and --db first). On SQLite each
// server reads a copy of the file of its own. Each round starts every server, warms each with 3 s of
// wrk (all at once), then loads all at once for S seconds; it prints each server's CPU a request and
// its difference from the first variant's; the last line has the medians over rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COMPETITION } from './phases.js';
import { freePort } from '../test/support/freePort.js';
import { START_ENV, START_NODE_ARGS } from '../src/heap.js';
import { cpuNs } from './measure.js';

const ADMIN = 'bench-admin-token-pgwarm-0123456';
const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    db: { type: 'string', default: 'pgwarm_ref' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    path: { type: 'string', default: 'leaderboard' },
    variant: { type: 'string', multiple: true, default: [] },
  },
});
const onPg = values.engine === 'postgres';
const server0 = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbUrl = onPg ? server0.replace(/\/[^/]*$/, `/${values.db}`) : '';
const dir = onPg ? `/tmp/${values.db}` : `/tmp/${values.db}-sqlite`;
if (!existsSync(`${dir}/ready`)) throw new Error(`run bench/pgWarm.ts --engine ${values.engine} first (${dir})`);
const variants = values.variant.map((v) => {
  const [name, script] = v.split('=');
  return { name: name!, script: script! };
});
if (variants.length < 2) throw new Error('--variant name=PATH/dist/server.js, at least two');

/** The requests wrk made, as it prints them (NaN if it printed none). */
const requests = (out: string) => Number(/(\d+) requests in/.exec(out)?.[1]);

function wrk(url: string, seconds: number): Promise<string> {
  return new Promise((resolve) => {
    const w = spawn('wrk', ['-t1', `-c${values.connections}`, `-d${seconds}s`, url], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    w.stdout.on('data', (d: Buffer) => (out += d.toString()));
    w.once('exit', () => resolve(out));
  });
}

async function start(name: string, script: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  let dbPath = `${dir}/bench.db`;
  if (!onPg) {
    const copies = `/tmp/${values.db}-pair`;
    mkdirSync(copies, { recursive: true });
    dbPath = `${copies}/${name}.db`;
    copyFileSync(`${dir}/bench.db`, dbPath);
    for (const ext of ['-wal', '-shm'])
      if (existsSync(`${dir}/bench.db${ext}`)) copyFileSync(`${dir}/bench.db${ext}`, `${dbPath}${ext}`);
  }
  const child = spawn(process.execPath, [...START_NODE_ARGS, script], {
    env: {
      ...process.env,
      ...START_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: dbPath,
      DATABASE_URL: dbUrl,
      SCORING_ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'info',
      SCORING_RATE_LIMIT_ANONYMOUS: '0',
      SCORING_RATE_LIMIT_VALIDATOR: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}/v1/competitions/${COMPETITION}/${values.path}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      // not up yet
    }
    if (i > 600) throw new Error(`${name}: not ready`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const perRequest: number[][] = variants.map(() => []);
for (let round = 0; round < Number(values.rounds); round++) {
  const servers = [];
  for (const v of variants) servers.push(await start(v.name, v.script));
  await Promise.all(servers.map((s) => wrk(s.url, 3)));
  const before = servers.map((s) => cpuNs(s.child.pid!));
  const outs = await Promise.all(servers.map((s) => wrk(s.url, Number(values.seconds))));
  const used = servers.map((s, i) => cpuNs(s.child.pid!) - before[i]!);
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => s.child.once('exit', r))));
  const line = variants.map((v, i) => {
    const us = used[i]! / 1000 / requests(outs[i]!);
    perRequest[i]!.push(us);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(outs[i]!)?.[1];
    const non2xx = /Non-2xx.*?(\d+)/.exec(outs[i]!)?.[1];
    return `${v.name} ${us.toFixed(2)} µs (${rps} req/s${non2xx ? `, NON-2XX ${non2xx}` : ''})`;
  });
  console.log(`[warmPair] round ${round + 1}: ${line.join(', ')}`);
}
const diffs = variants.map((_, i) => perRequest[i]!.map((us, r) => us - perRequest[0]![r]!));
console.log(
  `[warmPair] medians over ${values.rounds} rounds (${values.engine}): ` +
    variants
      .map(
        (v, i) =>
          `${v.name} ${median(perRequest[i]!).toFixed(2)} µs` + (i ? ` (paired ${median(diffs[i]!).toFixed(2)})` : ''),
      )
      .join(', '),
);
