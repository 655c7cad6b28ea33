// `swe-scoring <command>`: the package's command line (bin/swe-scoring.js starts it). Offline
// commands run here; import, demo and serve are the existing scripts, started as they are.
import { InputDocumentError } from '../snapshots/parseDocument.js';
import { score } from './score.js';
import { UsageError } from './usage.js';
import { verify } from './verify.js';

const HELP = `Usage: swe-scoring <command> [options]

Commands:
  score <input.ndjson> [--stages a,b]          score an input document offline, print {leaderboard, weights}
  verify <snapshot.json> <input.ndjson> [...]  check a snapshot's digest, hash, signature and weights
  import --competition ID --file PATH [...]    load SWE-Atlas-QnA tasks into a competition
  demo                                         start a server with a generated competition
  serve                                        start the server (configuration from the environment)

swe-scoring <command> --help describes each. score and verify need no server and no database.`;

/** Scripts that run when imported; they read process.argv as if started directly. */
const SCRIPTS: Record<string, string> = { import: './import.js', demo: './demo.js', serve: '../server.js' };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'score') return score(rest);
  if (command === 'verify') return verify(rest);
  const script = command === undefined ? undefined : SCRIPTS[command];
  if (script) {
    process.argv = [process.argv[0] ?? 'node', command as string, ...rest];
    await import(script);
    return -1; // the script owns the process from here
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP);
    return command === undefined ? 2 : 0;
  }
  throw new UsageError(`unknown command ${command} (see swe-scoring --help)`);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    const e = err as Error & { code?: string };
    if (err instanceof UsageError || e.code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`swe-scoring: ${e.message}`);
      process.exitCode = 2;
    } else if (err instanceof InputDocumentError) {
      console.error(`swe-scoring: input: ${e.message}`);
      process.exitCode = 1;
    } else if (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES') {
      console.error(`swe-scoring: ${e.message}`);
      process.exitCode = 1;
    } else {
      console.error(err);
      process.exitCode = 1;
    }
  },
);
