// The dashboard's tests in a real browser (Debian's chromium driven by playwright-core):
// `npm run test:browser`. Their own project: they build web/, seed the demo competition once,
// and each file starts the real server. Files end in .browser.ts so the main suite leaves them out.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    name: 'browser',
    include: ['test/browser/**/*.browser.ts'],
    globalSetup: ['test/browser/globalSetup.ts'],
    testTimeout: 60_000,
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-browser-results.json' }]] : ['default'],
    hookTimeout: 120_000,
    // One browser at a time on a 2-core machine: timings stay meaningful.
    fileParallelism: false,
  },
});
