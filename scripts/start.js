// `npm start`: the server of a source checkout, started fast and signalled directly.
//
// package.json's `start` execs node on this file with the start settings (src/heap.ts), so the
// process npm runs and signals is the server itself: SIGTERM to npm reaches it and it shuts down
// gracefully (a shell between the two would die on the signal and leave the server running).
// Before serving it brings two builds up to date, each only when its sources changed since the
// build it last made (a digest of their names, sizes and modification times, kept in the build's
// folder): the dashboard (web/ into web/dist) and the compiled server (src/ into dist/), which
// starts in about a second where the TypeScript under tsx takes two. When the compiler is missing
// or fails, it runs src/ under tsx instead. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.sources';

/** The dashboard and the compiled server: their sources, output folder and build command. */
const BUILDS = {
  dashboard: {
    sources: ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'package-lock.json'],
    out: 'web/dist',
    tool: 'node_modules/vite/bin/vite.js',
    args: ['build', '-c', 'web/vite.config.ts', '--logLevel', 'warn'],
  },
  server: {
    sources: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    out: 'dist',
    tool: 'node_modules/typescript/bin/tsc',
    args: ['-p', 'tsconfig.build.json'],
  },
};

const say = (line) => process.stderr.write(`npm start: ${line}\n`);

/** A digest of the files under `paths`: their names, sizes and modification times. */
function digest(paths) {
  const hash = createHash('sha256');
  const walk = (path) => {
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s) return;
    if (s.isDirectory()) for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    else hash.update(`${relative(ROOT, path)}\0${s.size}\0${s.mtimeMs}\n`);
  };
  for (const path of paths) walk(join(ROOT, path));
  return hash.digest('hex');
}

/** Builds `name` unless its output is of its current sources; whether the output is current after. */
function upToDate(name) {
  const build = BUILDS[name];
  const stamp = join(ROOT, build.out, STAMP);
  const sources = digest(build.sources);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sources) return true;
  if (!existsSync(join(ROOT, build.tool))) {
    say(`cannot build the ${name} (${build.out}): ${build.tool} is not installed (npm install)`);
    return false;
  }
  say(`building the ${name} (${build.out}): its sources changed since its last build`);
  const started = performance.now();
  const result = spawnSync(process.execPath, [join(ROOT, build.tool), ...build.args], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    say(`building the ${name} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
    return false;
  }
  writeFileSync(stamp, `${sources}\n`);
  say(`built the ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv.length > 2) {
  say(`takes no arguments (got ${process.argv.slice(2).join(' ')}): settings come from the environment`);
  process.exit(2);
}
upToDate('dashboard');
// The server module listens on import and exits the process itself on SIGTERM or SIGINT, as
// `swe-scoring serve` does; imported alone, without the other commands' modules, it is ready sooner.
if (upToDate('server')) {
  await import(pathToFileURL(join(ROOT, 'dist/server.js')).href);
} else {
  say('running the TypeScript of src/ under tsx instead of dist/');
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(ROOT, 'src/server.ts')).href);
}
