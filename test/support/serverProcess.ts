// The real server (src/server.ts under tsx, or the compiled dist/server.js) as a child process, as operators run it: on a free
// port and a given database, ready once GET /readyz answers 200. Used by the end-to-end and
// reliability suites and by the benchmark. A server left running is killed by `stopAllServers`
// (afterAll) or, at the latest, when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { START_ENV, START_NODE_ARGS } from '../../src/heap.js';
import { freePort } from './freePort.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The admin token servers get unless a test passes its own. */
export const SERVER_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerOptions {
  dbPath: string;
  adminToken?: string;
  /** LOG_LEVEL of the server; warn unless given. */
  logLevel?: string;
  /** Added to (and overriding) the environment. */
  env?: Record<string, string>;
  /** Node options before the entry, such as `--cpu-prof` (after the start settings' flags, so they may override them). */
  nodeArgs?: string[];
  /**
   * Whether the process gets production's start settings (src/heap.ts: the Docker image's and
   * `npm start`'s Node flags and environment); true unless false, so suites test what runs there.
   */
  startSettings?: boolean;
  /**
   * `source`: src/server.ts under tsx. `dist`: the compiled dist/server.js as the Docker image runs
   * it (`npm run build` first); the benchmark measures this one. Default: DEFAULT_ENTRY.
   */
  entry?: 'source' | 'dist';
  readyTimeoutMs?: number;
  /** How often /readyz is polled while starting; 50 ms unless given (the benchmark times starts with 5). */
  readyPollMs?: number;
}

export interface ServerProcess {
  baseUrl: string;
  /** From spawn to the first 200 of /readyz, ms (to within the poll interval). */
  readyMs: number;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends the signal (SIGTERM unless given; SIGKILL 10 s later) and resolves on exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * The entry of servers started without one: `source`, unless SCORING_TEST_SERVER_ENTRY=dist. CI
 * builds dist/ just before the tests and sets it: the servers the suites start are then the
 * compiled code production runs, and each starts in about 1.0 s instead of 1.7-2.6 s under tsx
 * (tsx's loader hooks answer every import from another thread), which the crash tests' 40
 * restarts and the other process suites pay many times over. Locally the default stays `source`,
 * so a stale dist/ is never what a test tests.
 */
const DEFAULT_ENTRY: 'source' | 'dist' = process.env.SCORING_TEST_SERVER_ENTRY === 'dist' ? 'dist' : 'source';

export async function startServer(opts: ServerOptions): Promise<ServerProcess> {
  const entry = opts.entry ?? DEFAULT_ENTRY;
  const port = await freePort();
  // On the PostgreSQL test projects, the database standing in for the path (test/support/engine.ts).
  const storage =
    process.env.SCORING_TEST_ENGINE === 'postgres'
      ? { DATABASE_URL: (await (await import('./engine.js')).postgresDatabaseFor(opts.dbPath)).url }
      : {};
  if (entry === 'dist' && !existsSync(join(ROOT, 'dist/server.js')))
    throw new Error('no dist/server.js: run `npm run build` first');
  const settings = opts.startSettings ?? true;
  const spawned = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(settings ? START_NODE_ARGS : []),
      ...(opts.nodeArgs ?? []),
      ...(entry === 'dist' ? ['dist/server.js'] : ['--import', 'tsx', 'src/server.ts']),
    ],
    {
      cwd: ROOT,
      env: {
        ...without(process.env, settings ? [] : Object.keys(START_ENV)),
        ...(settings ? START_ENV : {}),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: opts.dbPath,
        ...storage,
        SCORING_ADMIN_TOKEN: opts.adminToken ?? SERVER_ADMIN_TOKEN,
        LOG_LEVEL: opts.logLevel ?? 'warn',
        // Rate limits off unless a test sets them: suites and the benchmark send thousands of
        // requests from one address, which is not what they test (test/reliability/door.test.ts does).
        SCORING_RATE_LIMIT_ANONYMOUS: '0',
        SCORING_RATE_LIMIT_VALIDATOR: '0',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (child.pid === undefined) throw new Error('could not spawn the server');
  running.add(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const server: ServerProcess = {
    baseUrl: `http://127.0.0.1:${port}`,
    readyMs: 0,
    port,
    pid: child.pid,
    child,
    exited,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exit) return exit;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  await waitReady(server, () => exit, opts.readyTimeoutMs ?? 30_000, opts.readyPollMs ?? 50);
  server.readyMs = performance.now() - spawned;
  return server;
}

function without(env: NodeJS.ProcessEnv, names: string[]): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of names) delete out[name];
  return out;
}

async function waitReady(
  server: ServerProcess,
  exit: () => Exit | null,
  timeoutMs: number,
  pollMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const e = exit();
    if (e) throw new Error(`server exited before ready (${JSON.stringify(e)}):\n${server.output()}`);
    try {
      const res = await fetch(`${server.baseUrl}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop('SIGKILL');
      throw new Error(`server not ready after ${timeoutMs} ms:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Kills every server started here that still runs (afterAll, pass or fail). */
export async function stopAllServers(): Promise<void> {
  const all = [...running];
  for (const child of all) child.kill('SIGKILL');
  await Promise.all(
    all.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)))),
  );
}
