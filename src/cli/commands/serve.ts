// `swe-scoring serve`: the server (src/server.ts), configured from the environment.
import { spawn } from 'node:child_process';
import { missingStartSettings, START_ENV, START_NODE_ARGS } from '../../heap.js';
import type { Command } from '../command.js';

/**
 * Runs this same command again in a node given the start settings of `npm start` (src/heap.ts),
 * which only node's command line and the environment at start can set; resolves with its exit
 * code. SIGINT and SIGTERM are passed on, so the server inside shuts down gracefully. The two are
 * joined by an IPC channel as well: should this process die without passing a signal on (a
 * SIGKILL from a process manager), the server sees the channel close and shuts down
 * (`stopWithParent`) rather than run on unseen, holding the port and the database's lock.
 */
function withStartSettings(): Promise<number> {
  const child = spawn(process.execPath, [...START_NODE_ARGS, ...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, ...START_ENV },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const pass = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.on('SIGINT', pass('SIGINT'));
  process.on('SIGTERM', pass('SIGTERM'));
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1))),
  );
}

/**
 * A server started by a parent holding an IPC channel to it (withStartSettings) shuts down as on
 * SIGTERM when that channel closes: its parent is gone. The channel alone keeps nothing running.
 */
function stopWithParent(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

export const serveCommand: Command = {
  help: `Usage: swe-scoring serve [--new-signing-key]

Runs the HTTP server until Ctrl-C or SIGTERM: in-flight requests finish, then the database closes.
One server per SQLite file: while it runs, another server, a direct import or the demo on the same
DATABASE_PATH is refused, naming this server's pid (docs/OPERATING.md).
  --new-signing-key   start although the snapshot-signing key is not the one that signed the
                      database's snapshots: the change is recorded and audited (docs/OPERATING.md,
                      "Backup and restore"); the same as SCORING_ACCEPT_NEW_SIGNING_KEY=true
Started by npx, it runs node with the start settings of npm start (src/heap.ts) when they are missing.
Settings come from the environment, each with its default (docs/OPERATING.md, "Configuration"):
  PORT (3000), HOST (127.0.0.1)               where it listens
  DATABASE_PATH (./data/swe-scoring.db)       the SQLite file
  DATABASE_URL (unset)                        postgres://…: PostgreSQL instead of DATABASE_PATH
  DATABASE_POOL_SIZE (10)                     PostgreSQL connections per process
  DATABASE_TIMEOUT_MS (5000)                  PostgreSQL: longest wait for a connection (503)
  SCORING_INSTANCE_LABEL (unset)              e.g. replica-2: in the name of each PostgreSQL connection
  SCORING_ADMIN_TOKEN (generated into admin-token beside the database when unset)
  SCORING_READS_REQUIRE_TOKEN (false)         reads need a validator key or the admin token
  SCORING_SIGNING_KEY_PATH (signing-key.pem beside the database)  the snapshot-signing key
  SCORING_ACCEPT_NEW_SIGNING_KEY (false)      see --new-signing-key
  SCORING_SERVER_HOTKEY (unset)               the address signed requests name; when unset, a key pair
  SCORING_SERVER_KEY_PATH (server-key beside the signing key)   generated into this file
  SCORING_SIGNATURE_WINDOW_MS (8000)          accepted clock distance of a signed request
  SCORING_SNAPSHOT_INTERVAL (unset)           e.g. 10m: a snapshot of each changed competition
  SCORING_HEAP_GROWTH_PERCENT (50)            a full collection once the heap outgrows live data by this
  SCORING_SHUTDOWN_GRACE_MS (8000)            on SIGTERM, how long requests in flight may take
  SCORING_VALIDATOR_SILENT_AFTER_MS (3600000) a validator without a heartbeat this long is silent
  SCORING_MEMORY_BUDGET_MB (16)               competitions' in-memory scoring state; beyond it the least
                                              recently used give theirs back (read again when needed)
  LOG_LEVEL (info)                            fatal, error, warn, info, debug, trace, silent
POST /v1/score's limits (413 past one; 503 past the concurrency):
  SCORING_SCORE_MAX_MINERS (4096), SCORING_SCORE_MAX_TASKS (4096), SCORING_SCORE_MAX_RUNS (1000000),
  SCORING_SCORE_MAX_ANSWER_BYTES (16 MiB), SCORING_SCORE_MEMORY_MB (512),
  SCORING_SCORE_TIMEOUT_MS (30000), SCORING_SCORE_CONCURRENCY (2)
Limits at the door (docs/SECURITY.md), each with its default:
  SCORING_BODY_TIMEOUT_MS (30000)             a request body must arrive this soon after its headers (408)
  SCORING_MAX_INFLIGHT_BODY_BYTES (48 MiB)    bytes of bodies still arriving, server-wide (503)
  SCORING_MAX_CONNECTIONS (1024)              open connections; more are closed as they come
  SCORING_MAX_EVENT_STREAMS (512)             event streams server-wide (429)
  SCORING_MAX_EVENT_STREAMS_PER_ADDRESS (8)   event streams per client address (429)
  SCORING_RATE_LIMIT_WINDOW (1m)              the window of the rate limits below
  SCORING_RATE_LIMIT_ANONYMOUS (1200)         requests per window per address without credentials; 0: off
  SCORING_RATE_LIMIT_VALIDATOR (1200)         requests per window per validator; 0: off
  SCORING_RATE_LIMIT_ADMIN (0: off)           requests per window with the admin token
  SCORING_RATE_LIMIT_SIGNATURE_FAILURES (30)  failed signature checks per window per address, then
                                              its signed requests are refused before sr25519; 0: off
  SCORING_TRUST_PROXY (false)                 whose X-Forwarded-For names the client: true, a hop count,
                                              or proxy addresses and CIDR ranges (behind a TLS proxy)`,
  async run(argv) {
    // The one flag: said on the command line for the one start that means it.
    if (argv[0] === '--new-signing-key') {
      process.env.SCORING_ACCEPT_NEW_SIGNING_KEY = 'true';
      argv = argv.slice(1);
    }
    if (argv.length > 0) {
      console.error(
        `serve takes no arguments (got ${argv.join(' ')}); settings come from the environment, see swe-scoring serve --help`,
      );
      return 2;
    }
    // `npx swe-scoring serve` starts node without them; the server then holds more memory.
    if (missingStartSettings().length > 0) return withStartSettings();
    await import('../../server.js'); // listens, and exits the process itself on SIGTERM / SIGINT
    stopWithParent();
    return new Promise<number>(() => {});
  },
};
