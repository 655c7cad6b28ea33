// Where a batch's time goes, level by level, against the floor (issue 41's ingest target): the
// same batches of the reference competition, in turns, in this one process, on database files of
// their own with the server's settings:
//   floor    the durable raw insert (floors.ts rawInsert): the rows alone, bodies parsed beforehand;
//   storage  the server's storage transaction for the batch (src/services/runs.ts `ingest` through
//            the real store: task and judge checks, grading, idempotency, runs, aggregates, plan
//            statements, COMMIT, write events), runs parsed and checked beforehand;
//   writer   the body's JSON parsed, then the storage level on an app of its own: all a writer
//            thread would do if the main thread handed it each batch's text (a write path split over
//            two threads could go no faster than this level, whatever the main thread does);
//   grouped  the writer level with two batches a transaction (each parsed, checked and stored in
//            turn, one COMMIT for both): a writer thread committing the batches queued for it
//            together (group commit), timed a batch;
//   http     the real app over a real socket, one batch at a time (body, parse, checks, auth, all of
//            the above, the answer).
// Each batch goes to every level before the next batch, the order of the levels turning each
// batch, so no level gets the quieter moments. Prints each level's milliseconds a batch (wall),
// and the ratio the bench would report (floor / level); and the storage level's time in COMMIT.
//   node --import tsx bench/ingestBudget.ts [--batches N] [--stride K] [--size S]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { createSqliteStore } from '../src/db/sqlite/store.js';
import type { RunInput } from '../src/schemas/runs.js';
import { ingestRuns } from '../src/services/ingestRuns.js';
import { tempDir } from '../test/support/tempDir.js';
import { SIZES, buildCompetition, runBatches, type SizeName } from './generate.js';
import { rawInsert } from './floors.js';
import { COMPETITION, ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-budget-0123456789';
const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '120' },
    stride: { type: 'string', default: '3' },
    size: { type: 'string', default: 'reference' },
  },
});
if (!(values.size in SIZES)) throw new Error(`--size ${Object.keys(SIZES).join('|')}, not ${values.size}`);
const c = buildCompetition(SIZES[values.size as SizeName], 1);
const all = runBatches(c, 1000);
const picked = all.bodies.filter((_, i) => i % Number(values.stride) === 0).slice(0, Number(values.batches));
/** A batch body's runs, parsed. */
const runsOf = (body: string) => (JSON.parse(body) as { runs: RunInput[] }).runs;
const counts = picked.map((b) => runsOf(b).length);

/** Wall time inside each app's COMMIT statements (the WAL's fsync, and a checkpoint when one falls due). */
const commits = new Map<string, { ms: number; max: number }>();

async function app(dir: string, name: string) {
  const path = join(dir, `${name}.db`);
  const db = openDatabase(path);
  const exec = db.$client.exec.bind(db.$client);
  const commit = { ms: 0, max: 0 };
  commits.set(name, commit);
  db.$client.exec = (sql: string) => {
    if (sql !== 'COMMIT') return exec(sql);
    const start = performance.now();
    try {
      return exec(sql);
    } finally {
      const ms = performance.now() - start;
      commit.ms += ms;
      commit.max = Math.max(commit.max, ms);
    }
  };
  const store = createSqliteStore(db);
  const a = await buildApp({ store, adminToken: ADMIN, logger: false });
  const url = await a.listen({ port: 0, host: '127.0.0.1' });
  const key = await setup(url, ADMIN, c);
  const who = await a.services.validators.authenticate(key);
  if (!who) throw new Error('budget: the bench validator does not authenticate');
  return { a, store, url, key, validatorId: who.id };
}

const tmp = tempDir('ingest-budget');
try {
  const storage = await app(tmp.dir, 'storage');
  const writer = await app(tmp.dir, 'writer');
  const grouped = await app(tmp.dir, 'grouped');
  const http = await app(tmp.dir, 'http');
  // The floor as the bench takes it: every batch once before the levels and once after, on fresh files.
  const floor = (name: string) => {
    const d = join(tmp.dir, name);
    mkdirSync(d);
    return rawInsert(d, COMPETITION, picked).sequence;
  };
  const before = floor('floor-before');
  const ms = { storage: 0, writer: 0, grouped: 0, http: 0 };
  for (let i = 0; i < picked.length; i++) {
    const body = picked[i]!;
    const runs = runsOf(body);
    const levels: [keyof typeof ms, () => Promise<unknown>][] = [
      [
        'storage',
        () => storage.a.services.runs.ingest(COMPETITION, runs, { kind: 'validator', id: storage.validatorId }),
      ],
      [
        'writer',
        () =>
          writer.a.services.runs.ingest(COMPETITION, runsOf(body), {
            kind: 'validator',
            id: writer.validatorId,
          }),
      ],
      ['http', () => ingest(http.url, http.key, [body], [counts[i]!], 1)],
    ];
    // The grouped level takes each pair of batches at the second of them.
    if (i % 2 === 1)
      levels.splice(i % 4 === 1 ? 0 : levels.length, 0, [
        'grouped',
        () =>
          grouped.store.transaction(async (tx) => {
            for (const b of [picked[i - 1]!, body]) {
              await ingestRuns(tx, COMPETITION, runsOf(b), grouped.validatorId);
            }
          }),
      ]);
    for (const [name, run] of i % 2 === 0 ? levels : [...levels].reverse()) {
      const start = performance.now();
      await run();
      ms[name] += performance.now() - start;
    }
  }
  const after = floor('floor-after');
  const n = picked.length;
  ms.grouped *= n / (2 * Math.floor(n / 2));
  const floorMs = ((before.seconds + after.seconds) / 2) * 1000;
  const per = (v: number) => (v / n).toFixed(2).padStart(6);
  console.log(
    `${n} batches, ${before.runs} runs; floor ${before.runsPerSecond} runs/s before, ${after.runsPerSecond} after`,
  );
  console.log(`floor    ${per(floorMs)} ms a batch`);
  for (const [name, v] of Object.entries(ms))
    console.log(`${name.padEnd(8)} ${per(v)} ms a batch, floor/level ${(floorMs / v).toFixed(3)}`);
  const c = commits.get('storage')!;
  console.log(`storage's COMMITs ${per(c.ms)} ms a batch (the longest ${c.max.toFixed(1)} ms)`);
  await storage.a.close();
  await writer.a.close();
  await grouped.a.close();
  await http.a.close();
} finally {
  tmp.remove();
}
