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
