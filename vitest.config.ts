import { availableParallelism } from 'node:os';
import pg from 'pg';
import { defineConfig } from 'vitest/config';

// Test tiers as vitest projects. `npm run test:unit` runs the fast tier (in-process, on SQLite, no
// server needed: the scoring core, QnA import, inject-level HTTP and hostile-input suites): some 60 s
// of CPU time over two workers, against 8 to 12 minutes for `npm test`, which runs every project. A
// test that starts a server process or a CLI child belongs to e2e, reliability or cli, never to
// unit; one that needs a PostgreSQL server belongs to postgres (or to the -pg projects).
const UNIT = [
  'test/*.test.ts',
  'test/scoring/**/*.test.ts',
  'test/qna/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/db/**/*.test.ts',
  'test/signatures/**/*.test.ts',
  'test/snapshots/**/*.test.ts',
  'test/services/**/*.test.ts',
  // Services over a real store, no HTTP: on both engines (below).
  'test/services/store/**/*.test.ts',
  'test/support/**/*.test.ts',
  // The reliability suites that stay in-process (app.inject); the rest spawn the server.
  'test/reliability/access.test.ts',
  'test/reliability/limits.test.ts',
  'test/reliability/hostile-*.test.ts',
];

// The suites that run on both engines (issue 15): every HTTP suite, the service suites over a
// real store, the in-process reliability suites, and the suites that start server processes. On PostgreSQL they run again as the
// projects below with SCORING_TEST_ENGINE=postgres.
const BOTH_ENGINES = [
  'test/http/**/*.test.ts',
  'test/services/store/**/*.test.ts',
  'test/reliability/**/*.test.ts',
  'test/e2e/**/*.test.ts',
];
/**
 * The suites that need a PostgreSQL server beside SQLite, in the SQLite projects: the PostgreSQL
 * store's own (real migrations, each answer compared with SQLite's) and the two engines' apps
 * compared end to end. Project postgres; where no server answers they skip with a notice, except
 * in CI.
 */
const NEEDS_POSTGRES = [
  'test/db/pg*.test.ts',
  'test/db/pgStore/**/*.test.ts',
  'test/db/benchPgFloors.test.ts',
  'test/http/enginesAgree.test.ts',
];
/**
 * Left out of the second runtime's pass (scripts/test-node24.sh sets SCORING_SECOND_RUNTIME): the
 * two request fuzzes, whole under Node 20 in the same CI, test the requests rather than the runtime,
 * and take 50 s of the tier.
 */
const SECOND_RUNTIME_SKIPS = process.env.SCORING_SECOND_RUNTIME
  ? ['test/reliability/hostile-openapi.test.ts', 'test/reliability/hostile-signed.test.ts']
  : [];
/** Suites in those folders that never open a store, or whose subject is not the store (the HTTP layer): once is enough. */
const ENGINE_FREE = [
  'test/reliability/heapGrowth.test.ts',
  'test/reliability/benchLoad.test.ts',
  'test/reliability/lingeringClose.test.ts',
  'test/reliability/metricsScrape.test.ts',
  // POST /v1/score (admin token, body spooled, scored in a worker thread) and /healthz: no request reads or writes the store.
  'test/reliability/scoreDocument.test.ts',
];
/**
 * End-to-end suites whose subject is not the store: once, on SQLite. The generated clients, the
 * validator example, `npx swe-scoring serve` (whose servers, started by the command, run on a
 * SQLite file in either project: the PostgreSQL project ran the same test again), and the server
 * key (a file beside DATABASE_PATH on either engine, src/config.ts; GET /v1/identity on PostgreSQL
 * is signingKey.test.ts's, which runs on both).
 */
const E2E_ENGINE_FREE = [
  'test/e2e/generatedClients.test.ts',
  'test/e2e/validatorExample.test.ts',
  'test/e2e/npxServe.test.ts',
  'test/e2e/serverKey.test.ts',
];

/**
 * Whether the PostgreSQL projects run: where no server answers they are left out with a notice,
 * except in CI (CI=true), where they run and fail.
 */
async function postgresProjects(): Promise<boolean> {
  if (process.env.CI === 'true') return true;
  const url = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch (e) {
    console.warn(
      `PostgreSQL test projects SKIPPED: no server answers at ${new URL(url).host} (${(e as Error).message}). Set PG_TEST_URL to use one.`,
    );
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The in-process projects' worker threads start from bundles built once a run (the same modules,
 * not transpiled again by tsx in every worker); the projects that start server processes keep
 * tsx's start, which is how the server runs from source.
 */
const WORKER_BUNDLES = {
  globalSetup: ['test/support/workerBundles.ts'],
  setupFiles: ['test/support/useWorkerBundles.ts'],
};

const onPostgres = {
  env: { SCORING_TEST_ENGINE: 'postgres' },
  globalSetup: ['test/support/pgGlobalSetup.ts'],
};

const withPostgres = await postgresProjects();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // CI (.ci/run) reads the totals from this report; the browser suite writes its own.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
    hookTimeout: 60_000,
    // A worker per core (Vitest's default in a run is one fewer: a single worker on 2 cores). Most
    // suites wait on server processes, fsync and PostgreSQL rather than compute: on a 2-core machine
    // `npm test`'s vitest run took 476 s with two workers against 718 s with one (2026-12-03).
    maxWorkers: availableParallelism(),
    // Every test file belongs to a project; a file outside all of them would silently not run.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...NEEDS_POSTGRES, ...SECOND_RUNTIME_SKIPS],
          isolate: false,
          ...WORKER_BUNDLES,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: NEEDS_POSTGRES,
          isolate: false,
          globalSetup: ['test/support/pgRunSetup.ts'],
        },
      },
      // Server processes over real ports: startup, restarts, SIGTERM and SIGKILL.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      { extends: true, test: { name: 'reliability', include: ['test/reliability/**/*.test.ts'], exclude: UNIT } },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
      // test/browser/ has its own configuration (scripts/test-browser.sh).
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'unit-pg',
                include: UNIT.filter((p) => BOTH_ENGINES.some((b) => matchesPrefix(p, b))),
                isolate: false,
                ...onPostgres,
                ...WORKER_BUNDLES,
                globalSetup: [...onPostgres.globalSetup, ...WORKER_BUNDLES.globalSetup],
              },
            },
            {
              extends: true as const,
              test: { name: 'e2e-pg', include: ['test/e2e/**/*.test.ts'], exclude: E2E_ENGINE_FREE, ...onPostgres },
            },
            {
              extends: true as const,
              test: {
                name: 'reliability-pg',
                include: ['test/reliability/**/*.test.ts'],
                exclude: [...UNIT, ...ENGINE_FREE],
                ...onPostgres,
              },
            },
          ]
        : []),
    ],
  },
});

/** Whether the UNIT pattern `p` lies under the folder of pattern `b`. */
function matchesPrefix(p: string, b: string): boolean {
  return p.startsWith(b.slice(0, b.indexOf('*')));
}
