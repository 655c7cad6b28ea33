// What the import worker loads as it starts: its memory (a thread's isolate, the modules' code and
// the heap's growth over them) counts in the server's peak during an import (docs/bench/README.md,
// "the import worker's modules"). The row check is by hand (src/qna/rowCheck.ts) and the Parquet
// reader is loaded only for a Parquet file, so neither zod nor hyparquet is among the packages its
// modules import. Read from the sources: every import that is not `import type`, followed through
// the project's own files (a dynamic `import()` is not followed: it loads only when called).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** The packages (and node: builtins) a module imports when it loads, through the project's files. */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
      else packages.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
    }
  };
  visit(join(SRC, entry));
  return packages;
}

describe('the import worker', () => {
  it('loads neither zod nor the Parquet reader as it starts', () => {
    const packages = packagesLoadedBy('services/importWorker.ts');
    // The reading is real: the worker's own packages are found.
    expect(packages).toContain('better-sqlite3');
    expect(packages).toContain('node:worker_threads');
    expect(packages).not.toContain('zod');
    expect(packages).not.toContain('hyparquet');
  });

  it('finds zod where the server does load it (the reading can tell)', () => {
    expect(packagesLoadedBy('qna/fields.ts')).toContain('zod');
    expect(packagesLoadedBy('qna/parseImport.ts')).toContain('hyparquet');
  });
});
