import { defineConfig } from 'vitest/config';

// Test tiers as vitest projects. `npm run test:unit` runs the fast tier (in-process: the scoring
// core, QnA import, inject-level HTTP and hostile-input suites) and must stay under 40 s on a
// 2-core machine; `npm test` runs every project. A test that starts a server process or a CLI
// child belongs to e2e, reliability or cli, never to unit.
const UNIT = [
  'test/*.test.ts',
  'test/scoring/**/*.test.ts',
  'test/qna/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/db/**/*.test.ts',
  'test/signatures/**/*.test.ts',
  'test/snapshots/**/*.test.ts',
  'test/support/**/*.test.ts',
  // The reliability suites that stay in-process (app.inject); the rest spawn the server.
  'test/reliability/access.test.ts',
  'test/reliability/limits.test.ts',
  'test/reliability/hostile-*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // CI (.ci/run) reads the totals from this report; the browser suite writes its own.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
    hookTimeout: 60_000,
    // Every test file belongs to a project; a file outside all of them would silently not run.
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      // Server processes over real ports: startup, restarts, SIGTERM and SIGKILL.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      { extends: true, test: { name: 'reliability', include: ['test/reliability/**/*.test.ts'], exclude: UNIT } },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
      // test/browser/ gets its own project (and its own environment) when it lands; it stays out of unit.
    ],
  },
});
