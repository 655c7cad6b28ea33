// The server under test: test/support/serverProcess.ts's one spawner, from source (tsx, as
// `npm start`) or from the compiled dist/ (as `node dist/server.js` in production), with the time
// from spawn to the first 200 of /readyz polled every 5 ms: the benchmark restarts it on the same
// database and reports that time.
import { startServer } from '../test/support/serverProcess.js';

export type ServerBuild = 'tsx' | 'dist';

/** The flags the server runs with in production (the Dockerfile's NODE_OPTIONS, `npm start`): src/heap.ts. */
export const PRODUCTION_NODE_ARGS = ['--max-semi-space-size=4'];
/** The environment it runs with there (the Dockerfile's ENV, `npm start`): src/heap.ts. */
export const PRODUCTION_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: '131072' };

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
    env: { ...PRODUCTION_ENV, ...o.env },
    // Production's flags first; BENCH_SERVER_NODE_ARGS (o.nodeArgs) after them, so they can override.
    nodeArgs: [...PRODUCTION_NODE_ARGS, ...(o.nodeArgs ?? [])],
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
