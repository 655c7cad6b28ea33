// Global setup of the in-process test projects: the worker threads' entry modules
// (src/services/scoreWorker.ts, importWorker.ts, verifyWorker.ts, src/db/sqlite/txWorker.ts) bundled once a run with esbuild, which
// src/workerThread.ts then starts in place of the TypeScript source (./useWorkerBundles.ts tells
// it where). The same modules run; what is saved is tsx's start in every worker (a loader thread
// of its own, and the worker's whole module graph transpiled again), several hundred ms of CPU a
// worker, where a suite starts one a request.
import { build, type Plugin } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this run's worker bundles. */
    workerBundles: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Each worker's bundle name (what src/workerThread.ts starts) and its module under src/. */
const ENTRIES: Record<string, string> = {
  scoreWorker: 'services/scoreWorker.ts',
  importWorker: 'services/importWorker.ts',
  txWorker: 'db/sqlite/txWorker.ts',
  verifyWorker: 'services/verifyWorker.ts',
};

/**
 * Each source module's import.meta.url as the module's own file's URL, as it is when run from
 * source: a module that finds files beside it (src/db/client.ts, the migrations) finds the same
 * ones from the bundle.
 */
const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

export default async function setup(project: TestProject) {
  // Inside the checkout, so that the bundles' packages (left out of them) resolve from node_modules.
  await mkdir(join(ROOT, '.vitest-tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.vitest-tmp', 'workers-'));
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(ROOT, 'src', path)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [ownUrls],
  });
  project.provide('workerBundles', dir);
  return () => {
    rmSync(dir, { recursive: true, force: true });
  };
}
