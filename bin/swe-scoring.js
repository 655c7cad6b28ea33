#!/usr/bin/env node
// Starts the command line: the compiled dist/cli/main.js when `npm run build` has made it,
// otherwise the TypeScript source through tsx (a dev dependency, present after `npm ci`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
