// The periodic snapshot pass (SCORING_SNAPSHOT_INTERVAL, src/services/snapshotPass.ts) over several
// competitions of the bench's shape: the reference competition with fewer miners (--miners 32:
// about 54,000 runs each), ingested over HTTP into an app in this process. Then the passes, each
// timed (wall, and this process's CPU: the pass is all it runs): the first (a snapshot of each),
// three over competitions nothing changed in (the median), and one after a run posted to one of
// them (a snapshot of that one).
//   npm run bench:snapshot-pass [-- --competitions 6] [--miners 32] [--engine sqlite|postgres]
// On PostgreSQL a scratch database on the test server (PG_TEST_URL, else 127.0.0.1:5432), dropped after.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import type { Store } from '../src/db/contract.js';
import { openPostgresStore } from '../src/db/pg/open.js';
import { createSqliteStore } from '../src/db/sqlite/store.js';
import { createScratchDatabase, type ScratchDatabase } from '../test/support/postgres.js';
import { tempDir } from '../test/support/tempDir.js';
import { SIZES, buildCompetition, runBatches } from './generate.js';
import { ingest, setup } from './phases.js';

const ADMIN = `bench-admin-token-${process.pid}`;
const { values } = parseArgs({
  options: {
    competitions: { type: 'string', default: '6' },
    miners: { type: 'string', default: '32' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const log = (m: string) => console.log(`[bench:snapshotPass] ${m}`);

const tmp = tempDir('snapshot-pass');
let scratch: ScratchDatabase | undefined;
let store: Store;
if (values.engine === 'postgres') {
  scratch = await createScratchDatabase('bench_snapshot_pass');
  store = await openPostgresStore(scratch.url);
} else if (values.engine === 'sqlite') {
  store = createSqliteStore(openDatabase(join(tmp.dir, 'bench.db')));
} else throw new Error(`--engine sqlite|postgres, not ${values.engine}`);

const app = await buildApp({ store, adminToken: ADMIN, logger: false });
try {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const n = Number(values.competitions);
  let runs = 0;
  for (let i = 0; i < n; i++) {
    const id = `bench-${i}`;
    const c = buildCompetition({ ...SIZES.reference, miners: Number(values.miners) }, i + 1);
    const key = await setup(url, ADMIN, c, id);
    const { bodies, counts, total } = runBatches(c, 1000);
    const seconds = await ingest(url, key, bodies, counts, 2, id);
    runs += total;
    log(`${id}: ${total} runs ingested in ${seconds.toFixed(1)} s`);
  }
  const failed = (id: string, err: unknown) => {
    throw new Error(`${id}: ${String(err)}`);
  };
  const pass = async () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const taken = await app.services.snapshots.takeChanged(failed);
    const used = process.cpuUsage(cpu);
    return { taken, wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
  };
  const show = (what: string, p: Awaited<ReturnType<typeof pass>>) =>
    log(`${what}: ${p.taken} taken, ${p.wallMs.toFixed(1)} ms wall, ${p.cpuMs.toFixed(1)} ms CPU`);
  log(`${values.engine}, ${n} competitions, ${runs} runs`);
  show('first pass', await pass());
  const unchanged = [await pass(), await pass(), await pass()].sort((a, b) => a.wallMs - b.wallMs);
  show('a pass with nothing changed (median of 3)', unchanged[1]!);
  const one = { runId: 'one-more', taskId: buildCompetition({ ...SIZES.reference, miners: 1 }, 1).tasks[0]!.id };
  const res = await app.inject({
    method: 'POST',
    url: '/v1/competitions/bench-0/runs',
    headers: { authorization: `Bearer ${ADMIN}` },
    payload: { runs: [{ ...one, kind: 'baseline', resolved: true }] },
  });
  if (res.statusCode !== 200) throw new Error(`the run posted: ${res.statusCode} ${res.body}`);
  show('a pass after a run posted to one competition', await pass());
} finally {
  await app.close();
  await store.close();
  await scratch?.drop();
  tmp.remove();
}
