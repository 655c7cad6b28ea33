// The warm leaderboard read on PostgreSQL under wrk, with the server's CPU a request and the
// database's (its backends' CPU over the same seconds), builds A/B in turns on the same data.
// `--engine sqlite` runs the same on a SQLite file instead (/tmp/NAME-sqlite/bench.db; no database
// processes, no version reads).
//   node --import tsx bench/pgWarm.ts [--engine postgres|sqlite] [--db NAME] [--rounds N] [--seconds S] [--connections C]
//     [--path leaderboard|weights] [--variant name=ENV=VALUE ...] [--node-args=FLAGS]
//     [--perf PREFIX (perf record of each variant's server)] [--output PREFIX (its stdout)]
//     [--header 'Accept-Encoding: br' ...] (wrk's request headers; no floor with them: it sends one form)
// The first call ingests the reference competition into the database NAME (kept; default
// pgwarm_ref, on PG_TEST_URL's server). Each variant is a server started on it (PROBE_SCRIPT=<path
// of another build's dist/server.js> runs that build), warmed by 3 s of load, then loaded with
// `wrk -t1 -c<C>` for S seconds. Rounds alternate the variants' order. A variant named `floor`
// (after a server variant) is plain node:http sending the bytes the first server answered
// (bench/floorServer.ts). Besides CPU a request: the version reads' batching (reads a transaction
// of the database) and the server's context switches a request.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SIZES, buildCompetition, runBatches } from './generate.js';
import { COMPETITION, ingest, setup } from './phases.js';
import { freePort } from '../test/support/freePort.js';
import { START_ENV, START_NODE_ARGS } from '../src/heap.js';
import { launch } from './launch.js';
import { cpuNs } from './measure.js';

const ADMIN = 'bench-admin-token-pgwarm-0123456';
const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    db: { type: 'string', default: 'pgwarm_ref' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    variant: { type: 'string', multiple: true, default: ['new='] },
    'node-args': { type: 'string' },
    path: { type: 'string', default: 'leaderboard' },
    perf: { type: 'string' },
    output: { type: 'string' },
    // Request headers wrk sends (e.g. `Accept-Encoding: br`, the read as a browser asks); server variants only.
    header: { type: 'string', multiple: true, default: [] },
  },
});
const server0 = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
if (values.engine !== 'postgres' && values.engine !== 'sqlite') throw new Error('--engine postgres|sqlite');
const onPg = values.engine === 'postgres';
/** The server's DATABASE_URL: empty for SQLite (its file, DATABASE_PATH). */
const dbUrl = onPg ? server0.replace(/\/[^/]*$/, `/${values.db}`) : '';
const dir = onPg ? `/tmp/${values.db}` : `/tmp/${values.db}-sqlite`;
const log = (m: string) => console.log(`[pgwarm] ${m}`);

async function prepare(): Promise<void> {
  if (!onPg) return prepareSqlite();
  const admin = new pg.Client({ connectionString: server0 });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [values.db]);
  if (rowCount && existsSync(`${dir}/ready`)) return void (await admin.end());
  if (rowCount) await admin.query(`DROP DATABASE ${values.db}`);
  await admin.query(`CREATE DATABASE ${values.db}`);
  await admin.end();
  await ingestReference();
}

async function prepareSqlite(): Promise<void> {
  if (existsSync(`${dir}/ready`)) return;
  rmSync(dir, { recursive: true, force: true });
  await ingestReference();
}

async function ingestReference(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const c = buildCompetition(SIZES.reference, 1);
  log('ingesting reference...');
  const server = await launch({
    dbPath: `${dir}/bench.db`,
    adminToken: ADMIN,
    build: 'dist',
    env: { DATABASE_URL: dbUrl },
  });
  try {
    const key = await setup(server.baseUrl, ADMIN, c);
    const { bodies, counts } = runBatches(c, 1000);
    await ingest(server.baseUrl, key, bodies, counts, 4);
  } finally {
    await server.stop();
  }
  writeFileSync(`${dir}/ready`, '');
}

/** PIDs of the database's backends serving the server (application_name swe-scoring…, any kind, any build). */
async function backends(): Promise<number[]> {
  const c = new pg.Client({ connectionString: server0 });
  await c.connect();
  const { rows } = await c.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'swe-scoring%'",
    [values.db],
  );
  await c.end();
  return rows.map((r) => r.pid);
}

/** Transactions the database committed so far (each version read is one). */
async function xacts(): Promise<number> {
  const c = new pg.Client({ connectionString: server0 });
  await c.connect();
  const { rows } = await c.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [
    values.db,
  ]);
  await c.end();
  return Number(rows[0]!.n);
}

/** utime, stime of a process so far, in clock ticks. */
function userSys(pid: number): [number, number] {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [Number(f[11]), Number(f[12])];
}

/** Voluntary and involuntary context switches of the main thread so far. */
function ctxt(pid: number): [number, number] {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return [
    Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(s)![1]),
    Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(s)![1]),
  ];
}

let floorBody: { body: Buffer; headers: Record<string, string> } | undefined;

async function one(name: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const script = name === 'floor' ? 'bench/floorServer.ts' : (env.PROBE_SCRIPT ?? 'dist/server.js');
  if (name === 'floor' && !floorBody) throw new Error('floor must come after a server variant');
  const extra = (values['node-args'] ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    // With --perf, the floor writes a perf map too (its JavaScript named as the server's is).
    name === 'floor'
      ? [...(values.perf ? ['--perf-basic-prof'] : []), '--import', 'tsx', script]
      : [...START_NODE_ARGS, ...extra, script],
    {
      env: {
        ...process.env,
        ...START_ENV,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: `${dir}/bench.db`,
        DATABASE_URL: dbUrl,
        SCORING_ADMIN_TOKEN: ADMIN,
        LOG_LEVEL: 'info',
        SCORING_RATE_LIMIT_ANONYMOUS: '0',
        SCORING_RATE_LIMIT_VALIDATOR: '0',
        ...env,
      },
      stdio:
        name === 'floor'
          ? ['ignore', 'ignore', 'inherit', 'ipc']
          : ['ignore', values.output ? openSync(`${values.output}.${name}`, 'w') : 'ignore', 'inherit'],
    },
  );
  let url = `http://127.0.0.1:${port}/v1/competitions/${COMPETITION}/${values.path}`;
  if (name === 'floor') {
    const p = new Promise<{ port: number }>((r) => child.once('message', r));
    child.send({ body: floorBody!.body.toString('base64'), headers: floorBody!.headers });
    url = `http://127.0.0.1:${(await p).port}/`;
  }
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url);
      if (r.status === 200) {
        if (!floorBody) {
          const headers: Record<string, string> = {};
          for (const h of ['content-type', 'etag', 'vary', 'cache-control']) headers[h] = r.headers.get(h) ?? '';
          floorBody = { body: Buffer.from(await r.arrayBuffer()), headers };
        } else await r.arrayBuffer();
        break;
      }
    } catch {
      // not up yet
    }
    if (i > 600) throw new Error('server not ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  const headers = values.header.flatMap((h) => ['-H', h]);
  if (name === 'floor' && headers.length > 0) throw new Error('--header: no floor (it sends one form of the body)');
  // Warm: a few reads, then wrk 1 s.
  spawnSync('wrk', ['-t1', `-c${values.connections}`, '-d3s', ...headers, url]);
  const pgPids = name === 'floor' || !onPg ? [] : await backends();
  const us0 = userSys(child.pid!);
  const cs0 = ctxt(child.pid!);
  const xactsBefore = name === 'floor' || !onPg ? 0 : await xacts();
  const before = cpuNs(child.pid!);
  const pgBefore = pgPids.reduce((s, p) => s + cpuNs(p), 0);
  const perf = values.perf
    ? spawn(
        'perf',
        ['record', '-e', 'cpu-clock', '-F', '2000', '-g', '-p', String(child.pid), '-o', `${values.perf}.${name}`],
        {
          stdio: 'ignore',
        },
      )
    : undefined;
  const w = spawnSync('wrk', ['-t1', `-c${values.connections}`, `-d${values.seconds}s`, ...headers, url], {
    encoding: 'utf8',
  });
  const used = cpuNs(child.pid!) - before;
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((r) => perf.once('exit', r));
  }
  const us1 = userSys(child.pid!);
  const cs1 = ctxt(child.pid!);
  const pgUsed = pgPids.reduce((s, p) => s + cpuNs(p), 0) - pgBefore;
  const queries = name === 'floor' || !onPg ? 0 : (await xacts()) - xactsBefore;
  const total = Number(/(\d+) requests in/.exec(w.stdout)?.[1]);
  const split = `user ${(((us1[0] - us0[0]) * 1e4) / total).toFixed(1)} sys ${(((us1[1] - us0[1]) * 1e4) / total).toFixed(1)}`;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(w.stdout)?.[1];
  const non2xx = /Non-2xx.*?(\d+)/.exec(w.stdout)?.[1];
  if (name === 'floor') child.disconnect();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return `${name}: ${rps} req/s, server ${(used / 1000 / total).toFixed(1)} µs CPU a request (${split}), ${onPg && name !== 'floor' ? `postgres ${(pgUsed / 1000 / total).toFixed(1)} µs a request (${pgPids.length} backends), ${(total / queries).toFixed(1)} reads a transaction, ` : ''}${((cs1[0] - cs0[0]) / total).toFixed(2)}+${((cs1[1] - cs0[1]) / total).toFixed(2)} switches a request${non2xx ? ` NON-2XX ${non2xx}` : ''}`;
}

await prepare();
const variants = values.variant.map((v) => {
  const [name, ...rest] = v.split('=');
  const assignment = rest.join('=');
  const env: Record<string, string> = {};
  if (assignment) {
    const [k, ...val] = assignment.split('=');
    env[k!] = val.join('=');
  }
  return { name: name!, env };
});
for (let r = 0; r < Number(values.rounds); r++) {
  const order = r % 2 ? [...variants].reverse() : variants;
  for (const v of order) log(`round ${r + 1} ${await one(v.name, v.env)}`);
}
log(`load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
