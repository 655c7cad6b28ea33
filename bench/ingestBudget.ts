// Where a batch's time goes, level by level, against the floor (issue 41's ingest target): the
// same batches of the reference competition, in turns, in this one process, on database files of
// their own with the server's settings:
//   floor    the durable raw insert (floors.ts rawInsert): the rows alone, bodies parsed beforehand;
//   storage  the server's storage transaction for the batch (src/services/runs.ts `ingest` through
//            the real store: task and judge checks, grading, idempotency, runs, aggregates, plan
//            statements, COMMIT, write events), runs parsed and checked beforehand;
//   http     the real app over a real socket, one batch at a time (body, parse, checks, auth, all of
//            the above, the answer).
// Each batch goes to every level before the next batch, the order of the levels turning each
// batch, so no level gets the quieter moments. Prints each level's milliseconds a batch (wall),
// and the ratio the bench would report (floor / level).
//   node --import tsx bench/ingestBudget.ts [--batches N] [--stride K]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { createSqliteStore } from '../src/db/sqlite/store.js';
import type { RunInput } from '../src/schemas/runs.js';
import { tempDir } from '../test/support/tempDir.js';
import { SIZES, buildCompetition, runBatches } from './generate.js';
import { rawInsert } from './floors.js';
import { COMPETITION, ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-budget-0123456789';
const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '120' },
    stride: { type: 'string', default: '3' },
  },
});
const c = buildCompetition(SIZES.reference, 1);
const all = runBatches(c, 1000);
const picked = all.bodies.filter((_, i) => i % Number(values.stride) === 0).slice(0, Number(values.batches));
const counts = picked.map((b) => (JSON.parse(b) as { runs: unknown[] }).runs.length);

async function app(dir: string, name: string) {
  const path = join(dir, `${name}.db`);
  const db = openDatabase(path);
  const store = createSqliteStore(db);
  const a = await buildApp({ store, adminToken: ADMIN, logger: false });
  const url = await a.listen({ port: 0, host: '127.0.0.1' });
  const key = await setup(url, ADMIN, c);
  const who = await a.services.validators.authenticate(key);
  if (!who) throw new Error('budget: the bench validator does not authenticate');
  return { a, url, key, validatorId: who.id };
}

const tmp = tempDir('ingest-budget');
try {
  const storage = await app(tmp.dir, 'storage');
  const http = await app(tmp.dir, 'http');
  // The floor as the bench takes it: every batch once before the levels and once after, on fresh files.
  const floor = (name: string) => {
    const d = join(tmp.dir, name);
    mkdirSync(d);
    return rawInsert(d, COMPETITION, picked).sequence;
  };
  const before = floor('floor-before');
  const ms = { storage: 0, http: 0 };
  for (let i = 0; i < picked.length; i++) {
    const body = picked[i]!;
    const runs = (JSON.parse(body) as { runs: RunInput[] }).runs;
    const levels: [keyof typeof ms, () => Promise<unknown>][] = [
      [
        'storage',
        () => storage.a.services.runs.ingest(COMPETITION, runs, { kind: 'validator', id: storage.validatorId }),
      ],
      ['http', () => ingest(http.url, http.key, [body], [counts[i]!], 1)],
    ];
    for (const [name, run] of i % 2 === 0 ? levels : [...levels].reverse()) {
      const start = performance.now();
      await run();
      ms[name] += performance.now() - start;
    }
  }
  const after = floor('floor-after');
  const n = picked.length;
  const floorMs = ((before.seconds + after.seconds) / 2) * 1000;
  const per = (v: number) => (v / n).toFixed(2).padStart(6);
  console.log(
    `${n} batches, ${before.runs} runs; floor ${before.runsPerSecond} runs/s before, ${after.runsPerSecond} after`,
  );
  console.log(`floor    ${per(floorMs)} ms a batch`);
  for (const [name, v] of Object.entries(ms))
    console.log(`${name.padEnd(8)} ${per(v)} ms a batch, floor/level ${(floorMs / v).toFixed(3)}`);
  await storage.a.close();
  await http.a.close();
} finally {
  tmp.remove();
}
