// Writes the OpenAPI document the app generates to openapi/openapi.json, or with --check fails
// when the committed document differs from it.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';

const target = new URL('../openapi/openapi.json', import.meta.url);
const app = await buildApp({ db: openDatabase(':memory:'), adminToken: 'unused' });
const generated = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as different
  }
  if (committed !== generated) {
    console.error('openapi/openapi.json differs from what the app generates: run `npm run openapi` and commit it.');
    process.exit(1);
  }
  console.log('openapi/openapi.json is up to date');
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target.pathname}`);
}
