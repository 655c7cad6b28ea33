// End-to-end benchmark (issue 13): the real server as a child process, a generated competition
// ingested over HTTP, cold, warm and after-restart score reads, warm weights, weights on chain
// (under a metagraph giving each miner a uid) and coverage reads, reads during a big import,
// snapshots and run deletions (issue 11), peak memory; and in the same run, on the same machine,
// each figure's floor: the same runs inserted straight into SQLite, one GROUP BY scan of the runs,
// plain node:http sending the same leaderboard bytes, raw durable deletes.
//   npm run bench [-- --size small|reference|2x|large] [--seed N] [--auth-batches N] [--auth-rounds R]
//                 [--load auto|wrk|autocannon] [--server tsx|dist] [--engine sqlite|postgres]
// Prints figure, value, floor, ratio, target and whether it is met; writes bench/results.json and
// bench/results-<size>.json (for `npm run bench:plot`). `--engine postgres` (issue 15) runs the
// server on a scratch PostgreSQL database (storage.ts; PG_TEST_URL names the server, else
// 127.0.0.1:5432), takes the floors in PostgreSQL, and writes bench/results-<size>-postgres.json. Asserts nothing about speed: it exits
// non-zero only when a request fails or the stored data does not add up.
// BENCH_SERVER_NODE_ARGS passes flags to the server's node; BENCH_KEEP_DB=1 keeps the database;
// BENCH_SERVER_OUTPUT=<prefix> saves the server's output.
import { writeFileSync } from 'node:fs';
import { SIZES, buildCompetition, runBatches, scaleOf } from './generate.js';
import { tempDir } from '../test/support/tempDir.js';
import { rssSampler, type RssSampler } from './rss.js';
import { call, cpuNs, timedRead } from './measure.js';
import { BENCH_SIGNATURE_WINDOW_MS, compareAuth, poolRounds } from './authCompare.js';
import { launch, type BenchServer } from './launch.js';
import { load1, machine, parseCli } from './cli.js';
import { bracket } from './floors.js';
import { postgresStorage, sqliteStorage } from './storage.js';
import {
  alternate,
  BROWSER_ACCEPT_ENCODING,
  cpuUsPerRequest,
  pickTool,
  runLoad,
  startFloorServer,
  withCpu,
} from './load.js';
import { importUnderReads } from './importPhase.js';
import { deleteThroughApi, runsToDelete, snapshotCost } from './runSequence.js';
import { COMPETITION, WEIGHTS, coldReads, ingest, setup, shape, socketsSettled } from './phases.js';
import { figures, printAll, printFigures } from './report.js';
import { historyFigures, historyPhase, type HistoryResult } from './history.js';

const CLIENTS = 4;
/** The coverage read loaded warm: a first page of 1,000 pairs (the default size, asked for). */
const COVERAGE_PAGE = '/coverage?limit=1000';
const BATCH = 1000;
const ADMIN = `bench-admin-token-${process.pid}`; // at least 16 characters, whatever the pid
const log = (msg: string) => console.log(`[bench] ${msg}`);
const r2 = (v: number) => Math.round(v * 100) / 100;

async function main(): Promise<void> {
  const args = parseCli();
  const size = SIZES[args.size];
  const started = machine();
  /** The 1-minute load average as each phase starts. */
  const loads: Record<string, number> = {};
  /** Seconds each phase took (to the next phase's start). */
  const durations: Record<string, number> = {};
  let current: { name: string; at: number } | null = null;
  const phase = (name: string, rss?: RssSampler) => {
    const now = performance.now();
    if (current) durations[current.name] = r2((now - current.at) / 1000);
    current = name === 'end' ? null : { name, at: now };
    loads[name] = load1();
    rss?.phase(name);
  };
  const c = buildCompetition(size, args.seed);
  if (args.historyOnly) return historyOnly(args, c);
  log(`size ${args.size}, seed ${args.seed}: ${c.miners.length} miners, ${c.tasks.length} tasks; generating runs...`);
  let t = performance.now();
  const { bodies, counts, total } = runBatches(c, BATCH);
  const authBodies = bodies.slice(0, args.authBatches);
  const authCounts = counts.slice(0, args.authBatches);
  const mb = bodies.reduce((s, b) => s + b.length, 0) / 1e6;
  log(
    `${total} runs in ${bodies.length} batches (${mb.toFixed(0)} MB of JSON) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const tmp = tempDir('bench');
  const onExit = () => (process.env.BENCH_KEEP_DB ? undefined : tmp.remove());
  process.once('exit', onExit);
  const storage = args.engine === 'postgres' ? await postgresStorage(tmp.dir) : sqliteStorage(tmp.dir);
  const dbPath = storage.dbPath;
  const tool = pickTool(args.load);
  const deleteIds = runsToDelete(c, size.deletes);
  let server: BenchServer | null = null;
  let rss: RssSampler | null = null;
  try {
    // Storage floors in this process, with nothing else of ours running: the insert floor once
    // before the server's ingest and once after it (kept for the delete floor), the delete floor
    // after the API's deletions.
    const insertFloors = async (keep: boolean) => {
      log(`floor: the same runs into ${storage.floorSchema}, 1,000-row transactions...`);
      const f = await storage.insertFloor(COMPETITION, bodies, keep);
      await socketsSettled();
      log(
        `floor: insert ${f.sequence.runsPerSecond} runs/s${f.rowid ? ` (plain rowid ${f.rowid.runsPerSecond})` : ''}`,
      );
      return f;
    };
    phase('floor-insert');
    const insertBefore = await insertFloors(false);

    const env = {
      SCORING_SIGNATURE_WINDOW_MS: process.env.SCORING_SIGNATURE_WINDOW_MS ?? String(BENCH_SIGNATURE_WINDOW_MS),
      ...storage.serverEnv,
    };
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const start = (path = dbPath) => launch({ dbPath: path, adminToken: ADMIN, build: args.server, env, nodeArgs });
    /** Stops the running server and its sampler; keeps its output (BENCH_SERVER_OUTPUT) and what was sampled. */
    const stopServer = async (which: string) => {
      const seen = { peak: rss!.peakMb(), byPhase: rss!.sampledMb(), parts: rss!.sampledPartsMb() };
      saveServerOutput(server!, which);
      rss!.stop();
      await server!.stop();
      server = null;
      return seen;
    };
    phase('server-start');
    server = await start();
    rss = rssSampler(server.pid);
    const base = `/v1/competitions/${COMPETITION}`;
    const url = server.baseUrl;
    log(`server (${args.server}) pid ${server.pid} at ${url}, database ${storage.describe}`);
    phase('setup', rss);
    const key = await setup(url, ADMIN, c);
    phase('ingest', rss);
    log(`ingesting with ${CLIENTS} clients, batches of ${BATCH}...`);
    const seconds = await ingest(url, key, bodies, counts, CLIENTS);
    const stored = JSON.parse((await call(url, base)).text) as { counts: { runs: number } };
    if (stored.counts.runs !== total) throw new Error(`stored ${stored.counts.runs} runs, sent ${total}`);
    const ingestRate = Math.round(total / seconds);
    log(`ingest: ${total} runs in ${seconds.toFixed(1)} s = ${ingestRate} runs/s`);
    phase('floor-insert-again', rss);
    const insertAfter = await insertFloors(true);
    bodies.length = 0;
    const insertFloor = bracket(insertBefore.sequence, insertAfter.sequence);
    const rowidFloor = insertBefore.rowid && insertAfter.rowid ? bracket(insertBefore.rowid, insertAfter.rowid) : null;

    phase('cold', rss);
    const pid = server.pid;
    const cold = {
      leaderboard: await coldReads(url, key, c, `${base}/leaderboard`, 1000, false, pid),
      weights: await coldReads(url, key, c, `${base}/weights`, 2000),
      miner: await coldReads(url, key, c, `${base}/miners/${c.miners[0]!.hotkey}`, 3000),
      leaderboardAfterBaseline: await coldReads(url, key, c, `${base}/leaderboard`, 4000, true, pid),
    };
    log(
      `cold reads (median): leaderboard ${cold.leaderboard.medianMs} ms (server CPU ${cold.leaderboard.serverCpuMedianMs} ms), weights ${cold.weights.medianMs} ms, leaderboard after a baseline run ${cold.leaderboardAfterBaseline.medianMs} ms (server CPU ${cold.leaderboardAfterBaseline.serverCpuMedianMs} ms)`,
    );
    phase('floor-scan', rss);
    const scan = await storage.scanFloor(COMPETITION, WEIGHTS);
    await socketsSettled();
    log(`floor: GROUP BY scan ${scan.medianMs} ms (${scan.rows} runs, ${scan.groups} groups)`);
    phase('shape', rss);
    const sh = await shape(url, c);
    log(`shape: ${JSON.stringify(sh)}`);

    phase('warm', rss);
    // Twice: as wrk asks by default (no Accept-Encoding: the whole JSON), and as a browser's
    // dashboard asks (compressed; the server compresses a body once and keeps it). The floor serves
    // the very bytes the server answered each way.
    // `at`: the server read, this one by default; the restarted one below. `read`: the path under
    // the competition and the counted seconds, the leaderboard's by default.
    const first = { url, pid: server.pid };
    const warmAgainstFloor = async (
      label: string,
      headers: Record<string, string>,
      at: { url: string; pid: number } = first,
      read = { path: '/leaderboard', seconds: size.warmSeconds },
    ) => {
      const target = `${at.url}${base}${read.path}`;
      log(
        `warm ${read.path.slice(1)} ${label} against the node:http floor: ${tool}, 32 connections, ${read.seconds} s each...`,
      );
      const floorServer = await startFloorServer(target, headers);
      try {
        const both = await alternate(
          withCpu(at.pid, (seconds) => runLoad(tool, target, seconds, tmp.dir, headers)),
          withCpu(floorServer.pid, (seconds) => runLoad(tool, floorServer.url, seconds, tmp.dir, headers)),
          read.seconds,
        );
        const w = both.server;
        log(
          `warm ${read.path.slice(1)} ${label}: ${w.requestsPerSecond} req/s p99 ${w.p99Ms} ms, ${cpuUsPerRequest(w) ?? '-'} µs CPU a request; ` +
            `floor ${both.floor.requestsPerSecond} req/s, ${cpuUsPerRequest(both.floor) ?? '-'} µs`,
        );
        return { ...both, bytes: floorServer.bytes, encoding: floorServer.headers['content-encoding'] ?? 'identity' };
      } finally {
        floorServer.stop();
      }
    };
    const { server: warm, floor: warmFloor } = await warmAgainstFloor('uncompressed', {});
    const compressed = await warmAgainstFloor('compressed', { 'accept-encoding': BROWSER_ACCEPT_ENCODING });
    const warmCompressed = {
      ...compressed.server,
      floor: compressed.floor,
      bytes: compressed.bytes,
      encoding: compressed.encoding,
    };

    // The other reads validators poll, each against plain node:http serving its bytes, for less
    // time than the leaderboard (`readSeconds`): the weights and the weights on chain (issue 38:
    // the latter at the former's ratio), and a page of coverage (issue 40: p99 < 10 ms), which the
    // router answers from a body kept with the scores.
    phase('warm-reads', rss);
    const warmRead = async (path: string) => {
      const w = await warmAgainstFloor('uncompressed', {}, first, { path, seconds: size.readSeconds });
      return { ...w.server, floor: w.floor, bytes: w.bytes };
    };
    const warmWeights = await warmRead('/weights');
    const warmChain = await warmRead('/weights/chain');
    const warmCoverage = { ...(await warmRead(COVERAGE_PAGE)), path: COVERAGE_PAGE };

    const peakBeforeImport = rss.peakMb();

    phase('import', rss);
    log(`a ${size.importMb} MB QnA file through the import session API while a reader loop reads scores...`);
    const readPaths = [`${base}/leaderboard`, `${base}/weights`, `${base}/miners/${c.miners[1]!.hotkey}`];
    const imp = await importUnderReads(url, ADMIN, COMPETITION, readPaths, size.importMb);
    log(
      `import: ${imp.rows} tasks, commit ${imp.commitSeconds} s; reads p99 ${imp.reads.p99Ms} ms, max ${imp.reads.maxMs} ms`,
    );
    const firstSeen = await stopServer('first');

    phase('restart');
    log('restart on the same database...');
    t = performance.now();
    const restarted = await start();
    server = restarted;
    rss = rssSampler(restarted.pid);
    const firstCpu = cpuNs(restarted.pid);
    const firstReadMs = await timedRead(restarted.baseUrl, `${base}/leaderboard`);
    const firstReadServerCpuMs = r2((cpuNs(restarted.pid) - firstCpu) / 1e6);
    const toFirstReadMs = performance.now() - t;
    const secondReadMs = await timedRead(restarted.baseUrl, `${base}/leaderboard`);
    log(
      `ready in ${restarted.readyMs.toFixed(0)} ms; first leaderboard ${firstReadMs.toFixed(1)} ms (server CPU ${firstReadServerCpuMs} ms), then ${secondReadMs.toFixed(1)} ms`,
    );
    // The same warm read on the restarted server, whose scores were restored from the ones saved at
    // shutdown (src/db/savedScores.ts) and whose in-memory pairs were filled in the background:
    // the state a server runs in after every deploy. Measured apart because one process can differ
    // from another in how V8 compiled the request path (docs/bench/README.md, 2026-12-03 13:41).
    phase('warm-restarted', rss);
    const restartedWarm = await warmAgainstFloor(
      'after the restart',
      {},
      { url: restarted.baseUrl, pid: restarted.pid },
    );
    const warmRestarted = { ...restartedWarm.server, floor: restartedWarm.floor };

    phase('snapshots', rss);
    const snapshot = await snapshotCost(restarted.baseUrl, ADMIN, COMPETITION, 'benchmark', readPaths);
    log(
      `snapshot: ${snapshot.takeMs} ms, ${snapshot.documentBytes} B; input ${snapshot.inputMs} ms, ${snapshot.inputBytes} B`,
    );
    phase('deletes', rss);
    const deletes = await deleteThroughApi(
      restarted.baseUrl,
      key,
      COMPETITION,
      deleteIds.slice(0, size.deletes),
      CLIENTS,
    );
    phase('floor-delete', rss);
    const deleteFloor = await storage.deleteFloor(
      COMPETITION,
      deleteIds.slice(0, size.deletes),
      deleteIds.slice(size.deletes),
    );
    await socketsSettled();
    log(`floor: delete ${deleteFloor.keptPerSecond}/s kept, ${deleteFloor.plainPerSecond}/s plain`);
    phase('snapshot-after-deletes', rss);
    const afterDeletes = await snapshotCost(
      restarted.baseUrl,
      ADMIN,
      COMPETITION,
      'benchmark, after deletions',
      readPaths,
    );
    log(`deletes: ${deletes.deletesPerSecond} runs/s; snapshot after them ${afterDeletes.takeMs} ms`);
    const secondSeen = await stopServer('restarted');
    const databaseMb = await storage.databaseMb();

    // Signed against bearer ingest (issue 10), last, on a server of its own: its rounds add
    // competitions and runs the figures above are not about, and one round moves several percent on
    // a shared machine (the pooled rounds are the figure). On SQLite its database is a fresh one: a
    // server started on the reference database fills the restored pairs in the background, on the
    // main thread, through the first rounds (4x, 2026-12-03: one round 0.807x). Smaller tables make
    // a batch cheaper, so the signature's share is the larger there. Its peak counts in the peak RSS.
    let auth;
    let authSeen: Awaited<ReturnType<typeof stopServer>> | null = null;
    if (authBodies.length > 0) {
      phase('auth-start');
      const authServer = await start(`${tmp.dir}/auth.db`);
      server = authServer;
      rss = rssSampler(authServer.pid);
      phase('auth', rss);
      log(
        `bearer vs signed ingest on a server of its own: ${args.authRounds} rounds of ${authBodies.length} batches each, into fresh competitions...`,
      );
      const rounds = [];
      for (let r = 0; r < args.authRounds; r++) {
        rounds.push(await compareAuth(authServer.baseUrl, ADMIN, c, authBodies, authCounts, CLIENTS, r));
        const a = rounds.at(-1)!;
        log(`round ${r}: presigned / bearer ${a.serverRatio}x, signed as sent / bearer ${a.ratio}x`);
      }
      auth = poolRounds(rounds);
      log(
        `pooled: bearer ${auth.bearerRunsPerSecond}, presigned ${auth.presignedRunsPerSecond}, signed as sent ${auth.signedRunsPerSecond} runs/s`,
      );
      authSeen = await stopServer('auth');
    }

    // Issue 41: one server life takes `--history` competitions, on a database of its own.
    let history: HistoryResult | undefined;
    if (args.history > 0) {
      phase('history');
      const again = runBatches(c, BATCH);
      history = await historyPhase({
        start: () => start(`${tmp.dir}/history.db`),
        admin: ADMIN,
        c,
        bodies: again.bodies,
        counts: again.counts,
        total: again.total,
        n: args.history,
        clients: CLIENTS,
        log,
      });
    }
    phase('end');

    const peaks = [firstSeen.peak, secondSeen.peak, authSeen?.peak ?? null].filter((p): p is number => p !== null);
    const peakRssMb = peaks.length > 0 ? Math.round(Math.max(...peaks)) : null;
    const readyMs = r2(restarted.readyMs);
    const result = {
      date: new Date().toISOString(),
      command: `npm run bench -- --size ${args.size} --seed ${args.seed} --auth-batches ${args.authBatches} --auth-rounds ${args.authRounds} --load ${args.load} --server ${args.server} --engine ${args.engine}`,
      engine: args.engine,
      machine: started,
      loadAverageByPhase: loads,
      secondsByPhase: durations,
      size: args.size,
      scale: scaleOf(size),
      seed: args.seed,
      server: args.server,
      data: {
        miners: c.miners.length,
        tasks: c.tasks.length,
        qnaTasks: c.tasks.filter((x) => x.type === 'swe_atlas_qna').length,
        runs: total,
        requestMb: Math.round(mb),
        databaseMb,
      },
      ingest: { runs: total, seconds: r2(seconds), runsPerSecond: ingestRate, clients: CLIENTS, batchSize: BATCH },
      cold,
      warm,
      warmFloor,
      warmCompressed,
      warmRestarted,
      warmWeights,
      warmChain,
      warmCoverage,
      restart: {
        readyMs,
        firstReadMs: r2(firstReadMs),
        firstReadServerCpuMs,
        toFirstReadMs: r2(toFirstReadMs),
        secondReadMs: r2(secondReadMs),
      },
      importUnderReads: imp,
      memory: {
        peakRssMb,
        peakRssMbBeforeImport: peakBeforeImport === null ? null : Math.round(peakBeforeImport),
        peakRssMbAfterRestart: secondSeen.peak === null ? null : Math.round(secondSeen.peak),
        peakRssMbAuthServer: authSeen?.peak == null ? null : Math.round(authSeen.peak),
        maxSampledRssMbByPhase: {
          ...firstSeen.byPhase,
          ...prefixed('restarted ', secondSeen.byPhase),
          ...prefixed('auth server ', authSeen?.byPhase ?? {}),
        },
        maxSampledAnonFileMbByPhase: {
          ...firstSeen.parts,
          ...prefixed('restarted ', secondSeen.parts),
          ...prefixed('auth server ', authSeen?.parts ?? {}),
        },
      },
      floors: {
        /** Where the insert and delete floors ran. */
        storage: storage.floorSchema,
        rawInsert: insertFloor,
        ...(rowidFloor
          ? {
              rawInsertPlainRowid: rowidFloor,
              /** What AUTOINCREMENT (the run sequence) costs a raw insert: rowid rate / sequence rate. */
              autoincrementCost: r2(rowidFloor.runsPerSecond / insertFloor.runsPerSecond),
            }
          : {}),
        rawDelete: deleteFloor,
        groupByScan: scan,
      },
      runSequence: { snapshot, deletes, snapshotAfterDeletes: afterDeletes },
      shape: sh,
      ...(auth ? { auth } : {}),
      ...(history ? { history } : {}),
    };
    const rows = [...figures(result), ...(history ? historyFigures(history) : [])];
    printAll(result, rows);
    const json = `${JSON.stringify({ ...result, figures: rows }, null, 2)}\n`;
    // PostgreSQL results beside the SQLite ones, never over them.
    const files =
      args.engine === 'postgres'
        ? [`results-${args.size}-postgres.json`]
        : ['results.json', `results-${args.size}.json`];
    for (const file of files) writeFileSync(new URL(`./${file}`, import.meta.url), json);
    console.log(`\n[bench] OK: every request succeeded; results in ${files.map((f) => `bench/${f}`).join(' and ')}`);
  } catch (err) {
    if (server) console.error(`[bench] server output (tail):\n${server.output().slice(-4000).trim() || '(none)'}`);
    throw err;
  } finally {
    rss?.stop();
    await server?.stop();
    process.removeListener('exit', onExit);
    if (process.env.BENCH_KEEP_DB) log(`database kept: ${storage.describe}`);
    else {
      tmp.remove();
      await storage.close();
    }
  }
}

/**
 * `--history-only`: the history phase alone (bench/history.ts), on a fresh database; its table
 * printed, its results in bench/results-history-<size>.json.
 */
async function historyOnly(args: ReturnType<typeof parseCli>, c: ReturnType<typeof buildCompetition>): Promise<void> {
  const started = machine();
  const { bodies, counts, total } = runBatches(c, BATCH);
  log(
    `history only: ${args.history} competitions of ${total} runs each (${c.miners.length} miners, ${c.tasks.length} tasks)`,
  );
  const tmp = tempDir('bench-history');
  const storage = args.engine === 'postgres' ? await postgresStorage(tmp.dir) : sqliteStorage(tmp.dir);
  try {
    const env = {
      SCORING_SIGNATURE_WINDOW_MS: String(BENCH_SIGNATURE_WINDOW_MS),
      ...storage.serverEnv,
    };
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    let lives = 0;
    const history = await historyPhase({
      // Each server life's output is kept with BENCH_SERVER_OUTPUT (history-1, history-2).
      start: async () => {
        const server = await launch({ dbPath: storage.dbPath, adminToken: ADMIN, build: args.server, env, nodeArgs });
        const which = `history-${++lives}`;
        const stop = server.stop.bind(server);
        return Object.assign(server, {
          stop: async () => {
            saveServerOutput(server, which);
            await stop();
          },
        });
      },
      admin: ADMIN,
      c,
      bodies,
      counts,
      total,
      n: args.history,
      clients: CLIENTS,
      log,
    });
    const rows = historyFigures(history);
    console.log(`
swe-scoring bench, history phase, size ${args.size}, server ${args.server}, ${new Date().toISOString()}`);
    printFigures(rows);
    console.log(
      `  RSS after each competition: ${history.rssAfterEachMb.join(', ')} MB; peak ${history.peakMb} MB; after the restart ${history.restartedRssMb} MB`,
    );
    const json = `${JSON.stringify({ date: new Date().toISOString(), size: args.size, server: args.server, engine: args.engine, machine: started, history, figures: rows }, null, 2)}\n`;
    const file = `results-history-${args.size}${args.engine === 'postgres' ? '-postgres' : ''}.json`;
    writeFileSync(new URL(`./${file}`, import.meta.url), json);
    console.log(`\n[bench] OK: every request succeeded; results in bench/${file}`);
  } finally {
    if (!process.env.BENCH_KEEP_DB) {
      tmp.remove();
      await storage.close();
    }
  }
}

/** BENCH_SERVER_OUTPUT=<prefix> writes each server process's output (e.g. with
 * BENCH_SERVER_NODE_ARGS=--trace-gc) to <prefix>-first.log and <prefix>-restarted.log (history: -history-1, -history-2). */
function saveServerOutput(server: BenchServer, which: string): void {
  const prefix = process.env.BENCH_SERVER_OUTPUT;
  if (prefix) writeFileSync(`${prefix}-${which}.log`, server.output());
}

const prefixed = <T>(prefix: string, o: Record<string, T>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}${k}`, v]));

// Ctrl-C or a kill: exit through 'exit', whose handlers kill the server children.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`\n[bench] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
