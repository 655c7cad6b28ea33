// Durability across a PostgreSQL restart (issue 15), checked by hand because it restarts the
// machine's own PostgreSQL (it would break any other suite running against it, so it is not a
// test): a server on a scratch database acknowledges batches, PostgreSQL is restarted (a clean
// `restart`, or `--kill`: `pg_ctlcluster … stop -m immediate`, PostgreSQL's crash, then start),
// writes sent meanwhile answer 503, and once PostgreSQL is back the server answers by itself with
// every acknowledged run there.
//   node --import tsx scripts/pg-restart-check.ts [--kill] [--cluster 15/main]
// Needs root (pg_ctlcluster) and the server built or runnable from source.
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { migratePostgres } from '../src/db/pg/migrate.js';
import { createScratchDatabase } from '../test/support/postgres.js';
import { SERVER_ADMIN_TOKEN, startServer } from '../test/support/serverProcess.js';

const { values } = parseArgs({
  options: { kill: { type: 'boolean' }, cluster: { type: 'string', default: '15/main' } },
});
const [version, cluster] = values.cluster.split('/') as [string, string];
const headers = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const C = '/v1/competitions/restart';

const db = await createScratchDatabase('restart');
await migratePostgres(db.url);
const server = await startServer({ dbPath: '/unused', env: { DATABASE_URL: db.url, DATABASE_TIMEOUT_MS: '2000' } });
const call = async (method: string, path: string, body?: unknown) => {
  try {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch (e) {
    return { status: 0, body: { error: (e as Error).message } };
  }
};
const batch = (n: number) => ({
  runs: Array.from({ length: 100 }, (_, i) => ({
    runId: `b${n}-${i}`,
    taskId: 't',
    kind: 'miner',
    minerHotkey: `m${i % 7}`,
    resolved: i % 3 === 0,
  })),
});

try {
  await call('PUT', C, { name: 'Restart' });
  await call('PUT', `${C}/tasks`, { tasks: [{ id: 't', type: 'swebench_verified' }] });
  let acknowledged = 0;
  for (let n = 0; n < 20; n++) if ((await call('POST', `${C}/runs`, batch(n))).status === 200) acknowledged += 100;
  console.log(`acknowledged before the restart: ${acknowledged} runs`);

  const how = values.kill ? ['stop', '-m', 'immediate'] : ['stop', '-m', 'fast'];
  execFileSync('pg_ctlcluster', [version, cluster, ...how]);
  console.log(`PostgreSQL stopped (${how.join(' ')})`);
  const during = await call('POST', `${C}/runs`, batch(99));
  const ready = await call('GET', '/readyz');
  console.log(`while down: POST runs ${during.status} (${String(during.body.detail)}), /readyz ${ready.status}`);
  execFileSync('pg_ctlcluster', [version, cluster, 'start']);
  console.log('PostgreSQL started');

  const started = Date.now();
  while ((await call('GET', '/readyz')).status !== 200) {
    if (Date.now() - started > 30_000) throw new Error('the server is not ready 30 s after PostgreSQL came back');
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`server ready again ${Date.now() - started} ms after PostgreSQL started`);
  const counts = (await call('GET', C)).body.counts as { runs: number };
  const after = await call('POST', `${C}/runs`, batch(100));
  console.log(`stored runs: ${counts.runs} (acknowledged ${acknowledged}); a new batch: ${after.status}`);
  if (counts.runs !== acknowledged || after.status !== 200) throw new Error('FAILED: runs lost or not recovered');
  console.log('OK: nothing acknowledged was lost, and the server recovered by itself');
} finally {
  await server.stop();
  await db.drop();
}
