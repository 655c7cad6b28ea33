// Starts a worker thread on a module beside the caller. From the compiled build the worker is the
// .js file; from source (tsx, vitest) a tiny bootstrap registers tsx in the worker first, since a
// worker does not inherit the parent's --import hooks.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** `name` is the module's file name without extension, resolved against `base` (the caller's import.meta.url). */
export function startWorker(name: string, base: string): Worker {
  const entry = new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
  if (entry.pathname.endsWith('.js')) return new Worker(entry);
  // The ESM build of tsx's API, found beside the CommonJS one that require.resolve names.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true },
  );
}
