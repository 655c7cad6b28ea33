// `swe-scoring serve`: the server (src/server.ts), configured from the environment.
import type { Command } from '../command.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the server (stays running; Ctrl-C or SIGTERM stops it gracefully)',
  help: `Usage: swe-scoring serve

Runs the HTTP server until Ctrl-C or SIGTERM: in-flight requests finish, then the database closes.
One server per SQLite file: while it runs, another server, a direct import or the demo on the same
DATABASE_PATH is refused, naming this server's pid (docs/OPERATORS.md).
Settings come from the environment (docs/OPERATING.md, "Configuration"):
  PORT (3000), HOST (127.0.0.1), DATABASE_PATH (./data/swe-scoring.db), SCORING_ADMIN_TOKEN
  (generated into admin-token beside the database when unset), SCORING_READS_REQUIRE_TOKEN,
  SCORING_SERVER_HOTKEY (the address signed requests name; when unset, a key pair generated into
  server-key beside the snapshot-signing key, SCORING_SERVER_KEY_PATH), LOG_LEVEL.`,
  async run(argv) {
    if (argv.length > 0) {
      console.error(
        `serve takes no arguments (got ${argv.join(' ')}); settings come from the environment, see swe-scoring serve --help`,
      );
      return 2;
    }
    await import('../../server.js'); // listens, and exits the process itself on SIGTERM / SIGINT
    return new Promise<number>(() => {});
  },
};
