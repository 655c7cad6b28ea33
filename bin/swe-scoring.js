#!/usr/bin/env node
// `npx swe-scoring <command>`: from a source checkout (tsx installed) the TypeScript under src/,
// otherwise the compiled dist/ (npm run build).
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    cli = await import(source.href);
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
}
cli ??= await import(new URL('../dist/cli/main.js', import.meta.url).href);
// Not process.exit() at once: on a pipe, what the command printed may not have left yet.
await cli.exitWhenWritten(await cli.main(process.argv.slice(2)));
