// Fails when the dashboard's JavaScript is over budget: 150 KB gzip in total (issue 12). Measures
// every .js file under web/dist (build it first: `npm run build:web`), gzip level 9.
// `npm run web:size`; prints one line per file and the total.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const DIST = fileURLToPath(new URL('../web/dist/', import.meta.url));
const BUDGET = 150 * 1024;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

if (!existsSync(DIST)) {
  console.error('web/dist is missing: run `npm run build:web` first');
  process.exit(1);
}
const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js'))
  .sort();
if (files.length === 0) {
  console.error('web/dist holds no JavaScript: is the build broken?');
  process.exit(1);
}
let total = 0;
for (const file of files) {
  const raw = readFileSync(join(DIST, file));
  const gz = gzipSync(raw, { level: 9 }).length;
  total += gz;
  console.log(`${file.padEnd(40)} ${kb(raw.length).padStart(10)} raw ${kb(gz).padStart(10)} gzip`);
}
const verdict = total <= BUDGET ? 'within' : 'OVER';
console.log(`total JavaScript ${kb(total)} gzip, ${verdict} the budget of ${kb(BUDGET)}`);
process.exit(total <= BUDGET ? 0 : 1);
