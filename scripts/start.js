// `npm start`: the server of a source checkout, started fast and signalled directly.
//
// package.json's `start` execs node on this file with the start settings (src/heap.ts), so the
// process npm runs and signals is the server itself: SIGTERM to npm reaches it and it shuts down
// gracefully (a shell between the two would die on the signal and leave the server running).
// Before serving it brings two builds up to date (scripts/builds.js), each only when its sources
// changed since it was last built: the dashboard (web/dist) and the compiled server (dist/), which
// starts in about a second where the TypeScript under tsx takes two. When the compiler is missing
// or fails, it runs src/ under tsx instead. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { BUILDS, builtFrom, ROOT, sourcesDigest, stamp } from './builds.js';

const say = (line) => process.stderr.write(`npm start: ${line}\n`);

/** Builds `name` unless its output is of its current sources; whether the output is current after. */
function upToDate(name) {
  const build = BUILDS[name];
  const sources = sourcesDigest(name);
  if (builtFrom(name) === sources) return true;
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
  stamp(name, sources);
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
