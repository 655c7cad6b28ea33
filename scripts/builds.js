// The two builds of a source checkout and what each was built from: the dashboard (web/ into
// web/dist) and the compiled server (src/ into dist/). A build records a digest of its sources'
// names, sizes and modification times in its output folder (`.sources`); `npm start`
// (scripts/start.js) rebuilds only when the digest differs. `npm run build` and `npm run build:web`
// record it too (`node scripts/builds.js stamp server|dashboard`), so their output counts as current.
// Plain JavaScript: it runs before anything is compiled.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.sources';

export const BUILDS = {
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

/** A digest of the files under the build's sources: their names, sizes and modification times. */
export function sourcesDigest(name) {
  const hash = createHash('sha256');
  const walk = (path) => {
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s) return;
    if (s.isDirectory()) for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    else hash.update(`${relative(ROOT, path)}\0${s.size}\0${s.mtimeMs}\n`);
  };
  for (const path of BUILDS[name].sources) walk(join(ROOT, path));
  return hash.digest('hex');
}

/** The digest the build's output was made from, or null. */
export function builtFrom(name) {
  try {
    return readFileSync(join(ROOT, BUILDS[name].out, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

/** Records that the build's output is of `digest` (its current sources unless given). */
export function stamp(name, digest = sourcesDigest(name)) {
  writeFileSync(join(ROOT, BUILDS[name].out, STAMP), `${digest}\n`);
}

// `node scripts/builds.js stamp <name>`, after a build.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [verb, name] = process.argv.slice(2);
  if (verb !== 'stamp' || !(name in BUILDS)) {
    process.stderr.write(`usage: node scripts/builds.js stamp ${Object.keys(BUILDS).join('|')}\n`);
    process.exit(2);
  }
  stamp(name);
}
