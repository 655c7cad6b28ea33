// End-to-end benchmark: the real server as a child process, a reference competition ingested
// over HTTP, cold and warm score reads, peak memory, and the floor on the same database.
//   npm run bench [-- --size small|reference] [--seed N] [--auth-batches N]
// Prints a table, writes bench/results.json. Asserts nothing about speed: it exits non-zero only
// when a request fails or the stored data does not add up. BENCH_SERVER_NODE_ARGS passes flags to
// the server's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"); BENCH_KEEP_DB=1 keeps the database.
import { statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SIZES, buildCompetition, extraRun, runBatches, sweTaskInputs, type Competition } from './generate.js';
import { startServer, type ServerProcess } from '../test/support/serverProcess.js';
import { tempDir } from '../test/support/tempDir.js';
import { rssSampler } from './rss.js';
import { call, callJson, floorScan, stats, timed, type Floor, type Stats } from './measure.js';
import { BENCH_SIGNATURE_WINDOW_MS, compareAuth, type AuthCompare } from './authCompare.js';

const CLIENTS = 4;
const BATCH = 1000;
const COMPETITION = 'bench';
const WEIGHTS = { input: 1, cachedInput: 0.1, output: 3 };
const ADMIN = `bench-admin-${process.pid}`;

interface Args {
  size: 'reference' | 'small';
  seed: number;
  /** Batches ingested once with a bearer key and once signed (Epistula), for the comparison; 0 skips it. */
  authBatches: number;
}

function parseCli(): Args {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: 'reference' },
      seed: { type: 'string', default: '1' },
      'auth-batches': { type: 'string', default: '40' },
    },
  });
  if (values.size !== 'reference' && values.size !== 'small')
    throw new Error(`--size must be reference or small, got ${values.size}`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const authBatches = Number(values['auth-batches']);
  if (!Number.isInteger(authBatches) || authBatches < 0)
    throw new Error(`--auth-batches must be a non-negative integer, got ${values['auth-batches']}`);
  return { size: values.size, seed, authBatches };
}

const log = (msg: string) => console.log(`[bench] ${msg}`);

async function setup(server: ServerProcess, c: Competition): Promise<string> {
  const url = server.baseUrl;
  const admin = { token: ADMIN };
  await call(url, `/v1/competitions/${COMPETITION}`, {
    ...admin,
    method: 'PUT',
    body: JSON.stringify({ name: 'Benchmark', burnRatio: 0.1, tokenWeights: WEIGHTS }),
  });
  await call(url, `/v1/competitions/${COMPETITION}/tasks`, {
    ...admin,
    method: 'PUT',
    body: JSON.stringify({ tasks: sweTaskInputs(c) }),
  });
  for (const imp of c.qnaImports) {
    const res = await callJson<{ imported: number }>(
      url,
      `/v1/competitions/${COMPETITION}/tasks/import?complexity=${imp.complexity}`,
      { ...admin, body: imp.body, contentType: 'application/x-ndjson' },
    );
    if (res.imported !== c.size.qnaPerGroup)
      throw new Error(`QnA import of ${imp.complexity}: imported ${res.imported}, expected ${c.size.qnaPerGroup}`);
  }
  for (const hotkey of c.excluded) {
    await call(url, `/v1/competitions/${COMPETITION}/miners/${hotkey}`, {
      ...admin,
      method: 'PUT',
      body: JSON.stringify({ excluded: true, reason: 'benchmark: copied weights' }),
    });
  }
  const v = await callJson<{ apiKey: string }>(url, '/v1/validators', {
    ...admin,
    body: JSON.stringify({ name: 'bench-validator' }),
  });
  return v.apiKey;
}

async function ingest(url: string, key: string, bodies: string[], counts: number[]) {
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const i = next++;
      try {
        const r = await callJson<{ accepted: number; duplicates: number }>(
          url,
          `/v1/competitions/${COMPETITION}/runs`,
          { token: key, body: bodies[i]! },
        );
        if (r.accepted !== counts[i])
          throw new Error(`batch ${i}: accepted ${r.accepted} of ${counts[i]} (duplicates ${r.duplicates})`);
      } catch (err) {
        next = bodies.length; // the other clients stop too
        throw err;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return (performance.now() - start) / 1000;
}

/** Write one new miner run, then time one read; `rounds` times. */
async function coldReads(url: string, key: string, c: Competition, path: string, salt: number): Promise<Stats> {
  const times: number[] = [];
  const miner = c.miners[0]!;
  for (let i = 0; i < c.size.coldRounds; i++) {
    const task = c.tasks[(i * 37 + salt) % c.tasks.length]!;
    const run = extraRun(c, task, miner, salt + i);
    await call(url, `/v1/competitions/${COMPETITION}/runs`, { token: key, body: JSON.stringify({ runs: [run] }) });
    times.push(await timed(() => call(url, path)));
  }
  return stats(times);
}

/** Sanity of the data: zone mix over every miner's breakdown, ranked miners, weight winners. */
async function shape(url: string, c: Competition) {
  const zones: Record<string, number> = {};
  for (const m of c.miners) {
    const d = await callJson<{ tasks: { zone: string }[] }>(url, `/v1/competitions/${COMPETITION}/miners/${m.hotkey}`);
    for (const t of d.tasks) zones[t.zone] = (zones[t.zone] ?? 0) + 1;
  }
  const lb = await callJson<{ miners: { rank: number | null }[] }>(url, `/v1/competitions/${COMPETITION}/leaderboard`);
  const w = await callJson<{ finalWeights: Record<string, number>; burnWeight: number }>(
    url,
    `/v1/competitions/${COMPETITION}/weights`,
  );
  const winners = Object.values(w.finalWeights).filter((x) => x > 0).length;
  return {
    zones,
    ranked: lb.miners.filter((m) => m.rank !== null).length,
    weightWinners: winners,
    burnWeight: w.burnWeight,
  };
}

async function warm(url: string, seconds: number) {
  const r = await autocannon({
    url: `${url}/v1/competitions/${COMPETITION}/leaderboard`,
    connections: 32,
    duration: seconds,
  });
  if (r.errors > 0 || r.non2xx > 0 || r.timeouts > 0)
    throw new Error(`warm load: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return {
    requestsPerSecond: Math.round(r.requests.average),
    totalRequests: r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    megabytesPerSecond: Math.round(r.throughput.average / 1e5) / 10,
  };
}

function machine() {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 1e8) / 10,
    node: process.version,
    /** The 1-minute load average when the benchmark started: other work on the machine skews every figure. */
    loadAverageAtStart: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

interface Result {
  date: string;
  command: string;
  machine: ReturnType<typeof machine>;
  size: string;
  seed: number;
  data: { miners: number; tasks: number; qnaTasks: number; runs: number; requestMb: number };
  ingest: { runs: number; seconds: number; runsPerSecond: number; clients: number; batchSize: number };
  cold: { leaderboard: Stats; weights: Stats; miner: Stats };
  warm: Awaited<ReturnType<typeof warm>>;
  memory: { peakRssMb: number | null; maxSampledRssMbByPhase: Record<string, number> };
  shape: Awaited<ReturnType<typeof shape>>;
  auth?: AuthCompare;
  floor?: Floor & { databaseMb: number };
  coldLeaderboardToFloor?: number;
}

function printTable(r: Result, floor: Floor & { databaseMb: number }, ratio: number) {
  const { ingest: ing, cold, warm: w, memory: mem } = r;
  const rows: [string, string, string][] = [
    ['figure', 'value', 'target (reference size)'],
    ['ingest', `${ing.runsPerSecond} runs/s`, `>= 20000 runs/s (${ing.runs} runs in ${ing.seconds} s)`],
    ['cold leaderboard median / p95', `${cold.leaderboard.medianMs} / ${cold.leaderboard.p95Ms} ms`, 'median < 100 ms'],
    ['cold weights median / p95', `${cold.weights.medianMs} / ${cold.weights.p95Ms} ms`, ''],
    ['cold miner median / p95', `${cold.miner.medianMs} / ${cold.miner.p95Ms} ms`, ''],
    [
      'floor: GROUP BY scan median',
      `${floor.medianMs} ms`,
      `${floor.rows} runs -> ${floor.groups} groups, db ${floor.databaseMb} MB`,
    ],
    ['cold leaderboard / floor', String(ratio), '<= 0.5'],
    ['warm leaderboard', `${w.requestsPerSecond} req/s`, '>= 5000 req/s'],
    ['warm p50 / p99', `${w.p50Ms} / ${w.p99Ms} ms`, 'p99 < 10 ms'],
    ['server peak RSS (VmHWM)', mem.peakRssMb === null ? 'n/a' : `${mem.peakRssMb} MB`, '< 500 MB'],
  ];
  if (r.auth) {
    const a = r.auth;
    rows.push([
      'ingest bearer / signed / presigned',
      `${a.bearerRunsPerSecond} / ${a.signedRunsPerSecond} / ${a.presignedRunsPerSecond} runs/s`,
      `signed >= 0.95 x bearer: ${a.ratio}, server only ${a.serverRatio} (${a.batches} batches each)`,
    ]);
  }
  const m = r.machine;
  console.log(`\nswe-scoring benchmark, size ${r.size}, seed ${r.seed} (${r.command}), ${r.date}`);
  console.log(
    `machine: ${m.os}, ${m.cpu} x ${m.cores}, ${m.memoryGb} GB, node ${m.node}, load average at start ${m.loadAverageAtStart}\n`,
  );
  const width = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(`  ${row[0].padEnd(width[0]!)}  ${row[1].padStart(width[1]!)}  ${row[2]}`);
  console.log(
    `  server RSS by phase (max sampled, MB): ${Object.entries(mem.maxSampledRssMbByPhase)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
}

async function main(): Promise<void> {
  const args = parseCli();
  const size = SIZES[args.size];
  const started = machine();
  const c = buildCompetition(size, args.seed);
  log(`size ${args.size}, seed ${args.seed}: ${c.miners.length} miners, ${c.tasks.length} tasks; generating runs...`);
  const t = performance.now();
  const { bodies, counts, total } = runBatches(c, BATCH);
  // Kept for the bearer/signed comparison after the main phases (the rest is freed after ingest).
  const authBodies = bodies.slice(0, args.authBatches);
  const authCounts = counts.slice(0, args.authBatches);
  const mb = bodies.reduce((s, b) => s + b.length, 0) / 1e6;
  log(
    `${total} runs in ${bodies.length} batches (${mb.toFixed(0)} MB of JSON) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const extraArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const tmp = tempDir('bench');
  const dbPath = join(tmp.dir, 'bench.db');
  // The benchmark exiting early (an error, Ctrl-C): drop the database (the server child is killed by support/).
  const onExit = () => (process.env.BENCH_KEEP_DB ? undefined : tmp.remove());
  process.once('exit', onExit);
  // Presigned batches wait for their phase: the server accepts their timestamps for longer.
  const server = await startServer({
    dbPath,
    adminToken: ADMIN,
    nodeArgs: extraArgs,
    env: { SCORING_SIGNATURE_WINDOW_MS: process.env.SCORING_SIGNATURE_WINDOW_MS ?? String(BENCH_SIGNATURE_WINDOW_MS) },
  });
  const rss = rssSampler(server.pid);
  const url = server.baseUrl;
  try {
    let result: Result;
    try {
      log(`server pid ${server.pid} at ${url}, database ${dbPath}`);
      rss.phase('setup');
      const key = await setup(server, c);
      rss.phase('ingest');
      log(`ingesting with ${CLIENTS} clients, batches of ${BATCH}...`);
      const seconds = await ingest(url, key, bodies, counts);
      bodies.length = 0;
      const stored = await callJson<{ counts: { runs: number } }>(url, `/v1/competitions/${COMPETITION}`);
      if (stored.counts.runs !== total) throw new Error(`stored ${stored.counts.runs} runs, sent ${total}`);
      const ingestRate = Math.round(total / seconds);
      log(`ingest: ${total} runs in ${seconds.toFixed(1)} s = ${ingestRate} runs/s`);

      rss.phase('cold');
      const base = `/v1/competitions/${COMPETITION}`;
      const cold = {
        leaderboard: await coldReads(url, key, c, `${base}/leaderboard`, 1000),
        weights: await coldReads(url, key, c, `${base}/weights`, 2000),
        miner: await coldReads(url, key, c, `${base}/miners/${c.miners[0]!.hotkey}`, 3000),
      };
      log(
        `cold reads (median): leaderboard ${cold.leaderboard.medianMs} ms, weights ${cold.weights.medianMs} ms, miner ${cold.miner.medianMs} ms`,
      );
      rss.phase('shape');
      const sh = await shape(url, c);
      log(`shape: ${JSON.stringify(sh)}`);
      log(`warm leaderboard: autocannon, 32 connections, ${size.warmSeconds} s...`);
      rss.phase('warm');
      const warmRes = await warm(url, size.warmSeconds);
      const peak = rss.peakMb();
      let auth: AuthCompare | undefined;
      if (authBodies.length > 0) {
        rss.phase('auth');
        log(`bearer vs signed ingest: ${authBodies.length} batches each, into two fresh competitions...`);
        auth = await compareAuth(url, ADMIN, c, authBodies, authCounts, CLIENTS);
        log(
          `bearer ${auth.bearerRunsPerSecond}, signed ${auth.signedRunsPerSecond}, presigned ${auth.presignedRunsPerSecond} runs/s (ratios ${auth.ratio}, ${auth.serverRatio})`,
        );
      }
      result = {
        date: new Date().toISOString(),
        command: `npm run bench -- --size ${args.size} --seed ${args.seed}`,
        machine: started,
        size: args.size,
        seed: args.seed,
        data: {
          miners: c.miners.length,
          tasks: c.tasks.length,
          qnaTasks: c.tasks.filter((x) => x.type === 'swe_atlas_qna').length,
          runs: total,
          requestMb: Math.round(mb),
        },
        ingest: {
          runs: total,
          seconds: Math.round(seconds * 100) / 100,
          runsPerSecond: ingestRate,
          clients: CLIENTS,
          batchSize: BATCH,
        },
        cold,
        warm: warmRes,
        memory: { peakRssMb: peak === null ? null : Math.round(peak), maxSampledRssMbByPhase: rss.sampledMb() },
        shape: sh,
        ...(auth ? { auth } : {}),
      };
    } catch (err) {
      rss.stop();
      await server.stop();
      console.error(`[bench] server output (tail):\n${server.output().slice(-4000).trim() || '(none)'}`);
      throw err;
    } finally {
      rss.stop();
      await server.stop();
    }
    // The floor, on the same database file, once the server has closed it.
    const floor = { ...floorScan(dbPath, COMPETITION, WEIGHTS), databaseMb: Math.round(statSync(dbPath).size / 1e6) };
    const ratio = Math.round((result.cold.leaderboard.medianMs / floor.medianMs) * 1000) / 1000;
    Object.assign(result, { floor, coldLeaderboardToFloor: ratio });
    printTable(result, floor, ratio);
    writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
    console.log('\n[bench] OK: every request succeeded; results written to bench/results.json');
  } finally {
    process.removeListener('exit', onExit);
    if (process.env.BENCH_KEEP_DB) log(`database kept: ${dbPath}`);
    else tmp.remove();
  }
}

// Ctrl-C or a kill: exit through 'exit', whose handler kills the server child.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`\n[bench] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
