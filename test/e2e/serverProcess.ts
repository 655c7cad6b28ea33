// Runs the real server (src/server.ts) as a child process on a free port, for end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A port nobody listens on right now: bind port 0, read it, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh temporary directory; `remove` deletes it. */
export function tempDir(prefix = 'swe-scoring-e2e-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** Starts `node --import tsx src/server.ts` on a free port and waits for GET /readyz = 200. */
export async function startServer(databasePath: string, timeoutMs = 30_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      SCORING_ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exit: Exit | null = null;
  void exited.then((e) => (exit = e));

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit) throw new Error(`server exited before ready (${JSON.stringify(exit)}):\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready after ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    baseUrl,
    port,
    child,
    exited,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exit) child.kill(signal);
      return exited;
    },
  };
}
