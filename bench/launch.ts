// The server under test: test/support/serverProcess.ts's one spawner, from source (tsx, as
// `npm start`) or from the compiled dist/ (as `node dist/server.js` in production), with the time
// from spawn to the first 200 of /readyz polled every 5 ms: the benchmark restarts it on the same
// database and reports that time.
import { startServer } from '../test/support/serverProcess.js';

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

export async function launch(o: Launch): Promise<BenchServer> {
  const server = await startServer({
    dbPath: o.dbPath,
    adminToken: o.adminToken,
    entry: o.build === 'dist' ? 'dist' : 'source',
    // With production's start settings (startServer's default); BENCH_SERVER_NODE_ARGS (o.nodeArgs)
    // after its flags, so they can override.
    env: o.env,
    nodeArgs: o.nodeArgs,
    // Production's default level (the tests' servers log at warn): its request lines are part of the cost.
    logLevel: 'info',
    readyTimeoutMs: 60_000,
    readyPollMs: 5,
  });
  return {
    baseUrl: server.baseUrl,
    pid: server.pid,
    readyMs: server.readyMs,
    output: () => server.output(),
    stop: async () => {
      await server.stop();
    },
  };
}

/** A probe's variant (`--variant name=ENV=V,ENV2=V`): a name, and the environment its server gets. */
export interface Variant {
  name: string;
  env: Record<string, string>;
}

/** `name=ENV=V,ENV2=V` as a variant; values may hold `=`. */
export function parseVariant(spec: string): Variant {
  const [name, env = ''] = spec.split(/=(.*)/s);
  const pairs = env
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split(/=(.*)/s) as [string, string]);
  return { name: name!, env: Object.fromEntries(pairs) };
}

/**
 * A variant's compiled server on `dbPath`. Two keys of its environment are the probe's own:
 * PROBE_NODE_ARGS (node flags, space-separated) and PROBE_SCRIPT (another build's dist/server.js:
 * node takes the first path as the script, so that build runs). `nodeArgs` go before both.
 */
export function launchVariant(v: Variant, dbPath: string, adminToken: string, nodeArgs: string[] = []) {
  return launch({
    dbPath,
    adminToken,
    build: 'dist',
    env: v.env,
    nodeArgs: [
      ...nodeArgs,
      ...(v.env.PROBE_NODE_ARGS ?? '').split(' ').filter(Boolean),
      ...(v.env.PROBE_SCRIPT ? [v.env.PROBE_SCRIPT] : []),
    ],
  });
}
