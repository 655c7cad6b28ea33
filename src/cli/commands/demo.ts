// `swe-scoring demo` (`npm run demo`): a reproducible demo server. Resets DATABASE_PATH (default ./data/demo.db), seeds
// competition `demo` through the app's own HTTP routes (so validation, grading and aggregates run
// the real path), prints where to look, and serves until Ctrl-C. `--no-serve` seeds and exits.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { createSqliteStore } from '../../db/sqlite/store.js';
import { recordStartKey } from '../../services/signingKeys.js';
import { ephemeralSigner } from '../../signingKey.js';
import type { components } from '../../client/index.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/client.js';
import { holdWriterLock, LockHeld } from '../../db/writerLock.js';
import { complexityForRubricSize, parseQnaImport } from '../../qna/index.js';
import { CliError, type Command } from '../command.js';
import { BASELINE, MINERS, qnaTask, simulateRuns, sweTasks, type DemoTask } from '../demoData.js';
import { portIsFree } from '../port.js';

const QNA_FILE = fileURLToPath(new URL('../../../fixtures/swe-atlas-qna/test-00000-of-00001.parquet', import.meta.url));
/** The AA edition's judge as its dataset card documents it (docs/OPERATING.md): QnA runs are graded under it. */
const JUDGE_FILE = fileURLToPath(new URL('../../../fixtures/swe-atlas-qna/judge.json', import.meta.url));
/** The date the demo's judge is told the answers were written. */
const ANSWER_DATE = '2026-11-30';
export const COMPETITION = 'demo';
const SHOWCASE_TASK = '6905333b74f22949d97baa22'; // grafana/k6, the task with the two scale-corrected criteria

/** Response bodies, typed from the generated client (the routes' own schemas). */
type Schemas = components['schemas'];

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** DATABASE_PATH may point at real data: wipe only a file that holds nothing but the demo. */
function resetDemoDatabase(path: string): void {
  if (existsSync(path)) {
    const probe = new Database(path, { readonly: true });
    try {
      const ids = probe.prepare('SELECT id FROM competitions').pluck().all();
      if (ids.some((id) => id !== COMPETITION)) throw new Error('other competitions');
    } catch {
      throw new CliError(`${path} is not a demo database; refusing to reset it. Point DATABASE_PATH at a demo file.`);
    } finally {
      probe.close();
    }
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/** DATABASE_PATH for the demo alone: a file a server (or another demo) runs on is never reset. */
function demoLock(path: string) {
  try {
    return holdWriterLock(path, 'swe-scoring demo');
  } catch (e) {
    if (e instanceof LockHeld)
      throw new CliError(`${e.message}; stop it first, or point DATABASE_PATH at another file`);
    throw e;
  }
}

export async function seed(app: FastifyInstance, adminToken: string, log: (line: string) => void) {
  const send = async <T>(
    method: 'PUT' | 'POST',
    url: string,
    payload: unknown,
    token = adminToken,
    type = 'application/json',
  ): Promise<T> => {
    const res = await app.inject({
      method,
      url,
      payload: payload as string,
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 400)}`);
    return res.json<T>();
  };
  const base = `/v1/competitions/${COMPETITION}`;
  await send<Schemas['Competition']>('PUT', base, {
    name: 'Demo: SWE-Atlas QnA and SWE-bench-style tasks',
    burnRatio: 0.2,
    judgeVotes: 5,
  });
  const { apiKey } = await send<Schemas['ValidatorCreated']>('POST', '/v1/validators', { name: 'demo validator' });

  const tasks: DemoTask[] = [];
  let judge: { digest: string } | null = null;
  if (existsSync(QNA_FILE)) {
    const file = readFileSync(QNA_FILE);
    const imported = await send<Schemas['TaskWriteResult']>(
      'POST',
      `${base}/tasks/import`,
      file,
      adminToken,
      'application/vnd.apache.parquet',
    );
    // The import route sets one complexity for the whole file; here each task gets its own,
    // from its rubric size, by re-sending the same content with a complexity.
    const parsed = await parseQnaImport(new Uint8Array(file), 'parquet');
    if (!parsed.ok) throw new Error(`${QNA_FILE}: ${JSON.stringify(parsed.problems.slice(0, 3))}`);
    const specs = parsed.tasks.map(({ id, ...qna }) => ({
      id,
      type: 'swe_atlas_qna',
      complexity: complexityForRubricSize(qna.rubric.length),
      qna,
    }));
    await send<Schemas['TaskWriteResult']>('PUT', `${base}/tasks`, { tasks: specs });
    judge = {
      digest: (await send<Schemas['JudgeConfiguration']>('PUT', `${base}/judge`, readJson(JUDGE_FILE))).digest,
    };
    for (const s of specs) tasks.push(qnaTask(s.id, s.complexity!, s.qna.rubric));
    log(`QnA tasks: ${imported.imported} imported from ${QNA_FILE}, complexity by rubric size`);
  } else {
    log(`QnA data not found at ${QNA_FILE}; continuing with the SWE-bench-style tasks only`);
  }
  const swe = sweTasks(20);
  await send<Schemas['TaskWriteResult']>('PUT', `${base}/tasks`, {
    tasks: swe.map((t) => ({ id: t.id, type: 'swebench_verified', complexity: t.group, plannedRuns: 5 })),
  });
  tasks.push(...swe);

  let runs = 0;
  for (const task of tasks) {
    const batch = [BASELINE, ...MINERS]
      .flatMap((runner) => simulateRuns(task, runner, 5))
      .map((r) => (r.rubricVotes && judge ? { ...r, judge, answerDate: ANSWER_DATE } : r));
    runs += (await send<Schemas['RunBatchResult']>('POST', `${base}/runs`, { runs: batch }, apiKey)).accepted;
  }
  log(
    `${tasks.length} tasks (${tasks.length - swe.length} QnA, ${swe.length} SWE-bench-style), ${runs} runs from the baseline and ${MINERS.length} miners`,
  );
  return tasks;
}

const HELP = `Usage: swe-scoring demo [--no-serve]     (npm run demo [-- --no-serve])

Resets DATABASE_PATH (default ./data/demo.db; refuses a file holding other competitions), seeds
competition \`demo\` through the real routes, prints the leaderboard, then serves on PORT/HOST and
stays running until Ctrl-C. When PORT is not set and 3000 is taken (a server already running?),
it serves on a free port and prints it.

  --no-serve   seed, print the leaderboard and exit`;

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'no-serve': { type: 'boolean' } } });
  const config = loadConfig({ ...process.env, DATABASE_PATH: process.env.DATABASE_PATH || './data/demo.db' });
  const serve = !values['no-serve'];
  // Checked before seeding, so a taken port is said at once rather than after the work.
  let port = config.port;
  if (serve && !(await portIsFree(port, config.host))) {
    if (process.env.PORT) {
      throw new CliError(
        `port ${port} on ${config.host} is taken (is a server already running?). ` +
          'Stop it, or pick another port: PORT=3001 npm run demo (PORT=0 picks a free one)',
      );
    }
    console.log(
      `port ${port} is taken (is a server already running?): the demo will serve on a free port instead; set PORT=… to choose one`,
    );
    port = 0;
  }
  const lock = demoLock(config.databasePath);
  resetDemoDatabase(config.databasePath);
  const db = openDatabase(config.databasePath);
  const store = createSqliteStore(db);
  // Snapshots of the demo are signed with a throwaway key, recorded as the server's records its own
  // (src/server.ts), so GET /v1/identity names it and `verify --identity` finds it.
  const signer = ephemeralSigner();
  await recordStartKey(store, signer, { acceptNew: true, file: 'a throwaway key (npm run demo)' });
  const app = await buildApp({
    store,
    signer,
    adminToken: config.adminToken,
    readsRequireToken: config.readsRequireToken,
    // The server's settings, as `serve` takes them (docs/OPERATING.md): the door's limits, a proxy,
    // the scoring worker's, liveness and memory. The seed is the admin's, which no default limits.
    door: config.door,
    trustProxy: config.trustProxy,
    scoring: config.scoring,
    validatorSilentAfterMs: config.validatorSilentAfterMs,
    memoryBudgetMb: config.memoryBudgetMb,
    logger: { level: 'warn' },
  });
  const close = async () => {
    await app.close();
    db.$client.close();
    lock.release();
  };

  const started = performance.now();
  const tasks = await seed(app, config.adminToken, (line) => console.log(line));
  console.log(`seeded ${config.databasePath} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const board = (await app.inject({ url: `/v1/competitions/${COMPETITION}/leaderboard` })).json<
    Schemas['Leaderboard']
  >();
  console.log('\nrank  hotkey           score   resolve  weight');
  for (const m of board.miners) {
    const cells = [
      String(m.rank ?? '-').padEnd(5),
      m.hotkey.padEnd(16),
      (m.normalizedScore ?? 0).toFixed(3).padStart(6),
      `${((m.resolveRate ?? 0) * 100).toFixed(0)}%`.padStart(8),
      m.incentive.finalWeight.toFixed(3).padStart(7),
    ];
    console.log(cells.join(' '));
  }
  if (!serve) {
    await close();
    return 0;
  }

  const address = await app.listen({ port, host: config.host }).catch(async (e: NodeJS.ErrnoException) => {
    await close();
    if (e.code === 'EADDRINUSE')
      throw new CliError(`port ${port} was taken meanwhile; run again, or pick another: PORT=3001 npm run demo`);
    throw e;
  });
  const show = tasks.some((t) => t.id === SHOWCASE_TASK) ? SHOWCASE_TASK : tasks[0]!.id;
  const c = `${address}/v1/competitions/${COMPETITION}`;
  console.log(`\nDemo server at ${address} (stays running; Ctrl-C to stop)
  dashboard    ${address}/#/c/${COMPETITION}
  leaderboard  ${c}/leaderboard
  weights      ${c}/weights
  a miner      ${c}/miners/${MINERS[0]!.hotkey}
  a task       ${c}/tasks/${show}
  API docs     ${address}/docs
  admin token  ${config.adminTokenFile ?? 'from SCORING_ADMIN_TOKEN'}`);
  return new Promise<number>((resolve) => {
    let closing = false;
    const stop = () => {
      if (closing) return;
      closing = true;
      console.log('\nstopping: finishing requests, closing the database');
      // A signal handler cannot be awaited: resolve once the close settles, whichever way.
      void close().finally(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const demoCommand: Command = {
  help: HELP,
  run,
};
