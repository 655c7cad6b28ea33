// The server under test as a child process, from source (tsx, as `npm start`) or from the
// compiled dist/ (as `node dist/server.js` in production), with the time from spawn to the first
// 200 of /readyz measured at 5 ms resolution: the benchmark restarts it on the same database.
// test/support/serverProcess.ts does the same for the test suites with a 50 ms poll and no dist.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/freePort.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export type ServerBuild = 'tsx' | 'dist';

export interface Launch {
  dbPath: string;
  adminToken: string;
  build: ServerBuild;
  env?: Record<string, string>;
  nodeArgs?: string[];
}

export interface BenchServer {
  baseUrl: string;
  pid: number;
  /** Spawn to the first 200 of /readyz, ms. */
  readyMs: number;
  output(): string;
  /** SIGTERM (SIGKILL after 10 s); resolves on exit. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function launch(o: Launch): Promise<BenchServer> {
  const entry = o.build === 'dist' ? ['dist/server.js'] : ['--import', 'tsx', 'src/server.ts'];
  if (o.build === 'dist' && !existsSync(`${ROOT}/dist/server.js`))
    throw new Error('--server dist: no dist/server.js; run `npm run build` first');
  const port = await freePort();
  const start = performance.now();
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), ...entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: o.dbPath,
      SCORING_ADMIN_TOKEN: o.adminToken,
      LOG_LEVEL: 'warn',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not spawn the server');
  children.add(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      children.delete(child);
      resolve();
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`server exited before ready:\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server not ready after 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - start;
  return { baseUrl, pid: child.pid, readyMs, output: () => out, stop };
}
