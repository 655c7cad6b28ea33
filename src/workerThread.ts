// Starts a worker thread on a module beside the caller. From the compiled build the worker is the
// .js file; from source (tsx, vitest) a tiny bootstrap registers tsx in the worker first, since a
// worker does not inherit the parent's --import hooks.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * The young generation of each worker's heap. V8 grows it to 32-48 MB under a burst of
 * allocation (an import's parse), per thread; a worker's live data is a
 * few MB, and 8 MB leaves their collections short. A cap on the young generation never stops a
 * worker (unlike one on the old generation).
 */
const LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

let bundles: string | undefined;
/**
 * Starts workers run from source from the modules' bundles in `dir` (`name`.mjs) rather than
 * under tsx: the test runs' (test/support/workerBundles.ts), built once a run.
 */
export function startWorkersFromBundles(dir: string | undefined): void {
  bundles = dir;
}

/**
 * `name` is the module's file name without extension, resolved against `base` (the caller's
 * import.meta.url). `limits` add to the young-generation cap (a bound on the old generation, for a
 * worker that may be handed more than it can hold); `workerData` is the worker's `workerData`.
 */
export function startWorker(
  name: string,
  base: string,
  options: { limits?: ResourceLimits; workerData?: unknown } = {},
): Worker {
  const entry = new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
  const resourceLimits = { ...LIMITS, ...options.limits };
  const { workerData } = options;
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { resourceLimits, workerData });
  if (bundles) return new Worker(pathToFileURL(`${bundles}/${name}.mjs`), { resourceLimits, workerData });
  // The ESM build of tsx's API, found beside the CommonJS one that require.resolve names.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true, resourceLimits, workerData },
  );
}
