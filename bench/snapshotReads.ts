// The public snapshot list and history reads on a competition with many snapshots: the server's
// CPU for 10 sequential anonymous requests of each (limit=1000), and the longest a /healthz polled
// every 10 ms meanwhile waited (the event loop held). The database is built once at --db when
// missing (a competition of --miners miners, then --snapshots snapshots taken over HTTP), and kept:
// run the bench of another build on a copy of it (a build before a migration migrates it at start).
//   npm run build && npm run bench:snapshot-reads -- --db /tmp/reads.db [--miners 256] [--snapshots 1000]
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { launch } from './launch.js';
import { call, cpuNs } from './measure.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    miners: { type: 'string', default: '256' },
    snapshots: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '10' },
  },
});
if (!values.db) throw new Error('--db PATH is required');
const ADMIN = `bench-admin-token-${process.pid}`;
const log = (m: string) => console.log(`[bench:snapshotReads] ${m}`);
const fresh = !existsSync(values.db);
const started = performance.now();
const server = await launch({ dbPath: values.db, adminToken: ADMIN, build: 'dist' });
log(`ready in ${server.readyMs.toFixed(0)} ms (${((performance.now() - started) / 1000).toFixed(1)} s with the spawn)`);
const admin = (path: string, method: string, body: unknown) =>
  call(server.baseUrl, `/v1/competitions/c${path}`, { method, token: ADMIN, body: JSON.stringify(body) });

try {
  if (fresh) {
    const miners = Array.from({ length: Number(values.miners) }, (_, i) => `miner-${String(i).padStart(4, '0')}`);
    await call(server.baseUrl, '/v1/competitions/c', { method: 'PUT', token: ADMIN, body: '{"name":"Reads"}' });
    const tasks = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' }));
    await admin('/tasks', 'PUT', { tasks });
    const runs = tasks.flatMap((t, ti) => [
      { runId: `b-${t.id}`, taskId: t.id, kind: 'baseline', resolved: ti % 2 === 0 },
      ...miners.map((m, mi) => ({
        runId: `${m}-${t.id}`,
        taskId: t.id,
        kind: 'miner',
        minerHotkey: m,
        resolved: (mi + ti) % 3 !== 0,
        tokens: { input: 1000 + mi * 13 + ti, output: 100 + mi },
      })),
    ]);
    for (let i = 0; i < runs.length; i += 500) await admin('/runs', 'POST', { runs: runs.slice(i, i + 500) });
    const t0 = performance.now();
    let size = 0;
    for (let s = 0; s < Number(values.snapshots); s++)
      size = (await admin('/snapshots', 'POST', { note: `bench ${s}` })).text.length;
    log(
      `${values.snapshots} snapshots of ${size} bytes each taken in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  log(`database ${(statSync(values.db).size / 1e6).toFixed(0)} MB`);
  const reads = {
    'snapshot list': '/v1/competitions/c/snapshots?limit=1000',
    'weights history': '/v1/competitions/c/weights/history?limit=1000',
    'miner history': '/v1/competitions/c/miners/miner-0007/history?limit=1000',
  };
  for (const [name, path] of Object.entries(reads)) {
    let worst = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const t = performance.now();
        await call(server.baseUrl, '/healthz');
        worst = Math.max(worst, performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const cpu = cpuNs(server.pid);
    const t0 = performance.now();
    let bytes = 0;
    for (let i = 0; i < Number(values.requests); i++) bytes = (await call(server.baseUrl, path)).text.length;
    const wall = performance.now() - t0;
    const cpuMs = (cpuNs(server.pid) - cpu) / 1e6;
    polling = false;
    await poll;
    log(
      `${name}: ${values.requests} requests, server CPU ${cpuMs.toFixed(0)} ms, wall ${wall.toFixed(0)} ms, ` +
        `worst /healthz ${worst.toFixed(1)} ms, ${bytes} bytes per answer`,
    );
  }
} finally {
  await server.stop();
}
