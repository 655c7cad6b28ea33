// How long a recount holds the server: a PUT of the competition with new token weights, which
// recounts every run (src/db/aggregates.ts), while another client asks GET /healthz back to back.
//   node --import tsx bench/recountStall.ts [--size reference|large] [--db PATH] [--rounds N]
//     [--variant name=ENV=V,...]...
// On a fresh copy of bench/referenceDb.ts's database, a dist server per variant (PROBE_SCRIPT:
// another build's dist/server.js) takes `rounds` such PUTs, the output weight alternating, each
// after a leaderboard read. Per PUT: its time, and the longest wait of a /healthz asked during it
// (every request waits that long while the event loop is held); medians over the rounds.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, type SizeName } from './generate.js';
import { launchVariant, parseVariant } from './launch.js';
import { percentile } from './measure.js';
import { COMPETITION } from './phases.js';
import { referenceDatabase } from './referenceDb.js';

const ADMIN = 'bench-admin-token-coldloop-0123';
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'reference' },
    db: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    variant: { type: 'string', multiple: true, default: ['main='] },
  },
});
const sizeName = values.size as SizeName;
const c = buildCompetition(SIZES[sizeName], 1);
const db = values.db ?? `/tmp/coldloop-${sizeName}.db`;
const rounds = Number(values.rounds);
const log = (m: string) => console.log(`[recount] ${m}`);
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

async function probe(spec: string): Promise<void> {
  const variant = parseVariant(spec);
  const copy = `${db}.recount`;
  for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  copyFileSync(db, copy);
  const server = await launchVariant(variant, copy, ADMIN);
  const url = `${server.baseUrl}/v1/competitions/${COMPETITION}`;
  const auth = { authorization: `Bearer ${ADMIN}` };
  try {
    const puts: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const board = await fetch(`${url}/leaderboard`, { headers: auth });
      await board.arrayBuffer();
      let putDone = false;
      let longest = 0;
      const pings = (async () => {
        while (!putDone) {
          const t = performance.now();
          const res = await fetch(`${server.baseUrl}/healthz`);
          await res.arrayBuffer();
          longest = Math.max(longest, performance.now() - t);
        }
      })();
      const t = performance.now();
      const res = await fetch(url, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: COMPETITION,
          tokenWeights: { input: 1, cachedInput: 0.1, output: i % 2 ? 1 : 2 },
        }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`PUT ${res.status}: ${text}`);
      puts.push(performance.now() - t);
      putDone = true;
      await pings;
      waits.push(longest);
    }
    const each = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    log(
      `${variant.name} (${sizeName}): PUT median ${median(puts).toFixed(0)} ms (${each(puts)}); ` +
        `longest /healthz wait during it, median ${median(waits).toFixed(1)} ms (${each(waits)})`,
    );
  } finally {
    await server.stop();
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  }
}

await referenceDatabase(db, c, ADMIN, log);
for (const spec of values.variant) await probe(spec);
log(`load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
