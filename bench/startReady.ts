// `npm start` ready after a restart with nothing changed (issue 41: <= 1.5 s): the reference
// competition ingested once into a database of its own by the compiled server, then `npm start`
// (the README's command, with its build checks) started N times on it, each timed from the spawn to
// the first 200 from /readyz, then stopped with SIGTERM. The first start may rebuild what a fresh
// checkout has not built yet (it says so); the ones after it are the restarts with nothing changed.
//   node --import tsx bench/startReady.ts [--starts N] [--db PATH (kept; reused when it exists)]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { SIZES, buildCompetition, runBatches } from './generate.js';
import { launch } from './launch.js';
import { ingest, setup } from './phases.js';

const ADMIN = 'bench-admin-token-startready-0123';
const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '4' },
    db: { type: 'string', default: '/tmp/startready.db' },
  },
});
const db = values.db;

/** A port free now (the server is told it; PORT=0 would not say which it took). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

if (!existsSync(db)) {
  const c = buildCompetition(SIZES.reference, 1);
  const { bodies, counts } = runBatches(c, 1000);
  const s = await launch({ dbPath: db, adminToken: ADMIN, build: 'dist' });
  try {
    const key = await setup(s.baseUrl, ADMIN, c);
    await ingest(s.baseUrl, key, bodies, counts, 4);
    await fetch(`${s.baseUrl}/v1/competitions/bench/leaderboard`).then((r) => r.text());
  } finally {
    await s.stop();
  }
}
for (let i = 0; i < Number(values.starts); i++) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    env: { ...process.env, DATABASE_PATH: db, PORT: String(port), SCORING_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (d: Buffer) => (said += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}): ${said.slice(0, 600)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - started;
  const built = said.split('\n').filter((l) => l.startsWith('npm start: buil'));
  console.log(`start ${i + 1}: ready in ${ms.toFixed(0)} ms${built.length ? ` (${built.join('; ')})` : ''}`);
  child.kill('SIGTERM');
  await exited;
}
