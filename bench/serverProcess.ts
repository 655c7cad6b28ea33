// The real server as a child process: spawn on a free port and a fresh database, wait for
// /readyz, watch its memory, stop it. The child is killed whatever happens to the benchmark.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  pid: number;
  baseUrl: string;
  /** The fresh temporary directory holding the database. */
  dir: string;
  dbPath: string;
  /** Peak resident set (VmHWM) in MB, or null where /proc is missing or the process is gone. */
  peakRssMb(): number | null;
  /** Largest VmRSS seen by the 200 ms sampler, in MB, per phase named with `phase`. */
  sampledRssMb(): Record<string, number>;
  /** Starts a new phase of the RSS sampler. */
  phase(name: string): void;
  /** The last lines the server printed. */
  output(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A field of /proc/<pid>/status in MB (the kernel reports kB). */
function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export async function startServer(adminToken: string, extraNodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-bench-'));
  const dbPath = join(dir, 'bench.db');
  const child = spawn(process.execPath, [...extraNodeArgs, '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: dbPath, SCORING_ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the server');
  let out = '';
  const keep = (chunk: Buffer) => (out = (out + chunk.toString('utf8')).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      out += `\n[server process exited: ${signal ? `signal ${signal}` : `code ${code}`}]`;
      resolve();
    }),
  );
  const killNow = () => {
    if (!exited) child.kill('SIGKILL');
  };
  // The benchmark exiting early (an error, Ctrl-C): kill the server, drop its database.
  const onExit = () => {
    killNow();
    if (!process.env.BENCH_KEEP_DB) rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const rssByPhase: Record<string, number> = {};
  let phase = 'start';
  const sample = () => {
    const rss = procStatusMb(pid, 'VmRSS');
    if (rss !== null) rssByPhase[phase] = Math.max(rssByPhase[phase] ?? 0, Math.round(rss));
  };
  const sampler = setInterval(sample, 200);
  sampler.unref();

  const baseUrl = `http://127.0.0.1:${port}`;
  const handle: ServerProcess = {
    pid,
    baseUrl,
    dir,
    dbPath,
    peakRssMb: () => procStatusMb(pid, 'VmHWM'),
    sampledRssMb: () => (sample(), { ...rssByPhase }),
    phase: (name) => {
      sample();
      phase = name;
    },
    output: () => out,
    async stop() {
      clearInterval(sampler);
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(killNow, 10_000);
        await exit;
        clearTimeout(timer);
      }
      process.removeListener('exit', onExit);
    },
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the server exited before it was ready:\n${out}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      await res.arrayBuffer();
      if (res.ok) return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the server was not ready within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
