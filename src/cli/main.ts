// `swe-scoring <command>`: one command line for the server and its tools. Each command is a module
// in src/cli/commands exporting a Command {help, run}, listed below by name and summary.
import { pathToFileURL } from 'node:url';
import { PACKAGE_VERSION } from '../version.js';
import { CliError, type Command } from './command.js';

/**
 * A command as `swe-scoring --help` lists it. Its module is imported only when that command runs
 * (or prints its help): loading every command's modules (the app, both stores, the import
 * pipeline) cost each process some 0.6 s of CPU before it did anything, `score` or `--help` alike.
 */
interface Listed {
  name: string;
  /** One line for `swe-scoring --help`. */
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: Listed[] = [
  {
    name: 'serve',
    summary: 'run the server (stays running; Ctrl-C or SIGTERM stops it gracefully)',
    load: async () => (await import('./commands/serve.js')).serveCommand,
  },
  {
    name: 'import',
    summary: 'import SWE-Atlas-QnA tasks from a file of any size (direct, or --url through a running server)',
    load: async () => (await import('./commands/import.js')).importCommand,
  },
  {
    name: 'demo',
    summary: 'seed a demo competition and serve it (stays running; --no-serve seeds and exits)',
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  {
    name: 'backup',
    summary: 'write a consistent copy of the database, safe while the server runs',
    load: async () => (await import('./commands/backup.js')).backupCommand,
  },
  {
    name: 'restore',
    summary: 'put a backup in place of the database, the server stopped, keeping the one it replaces',
    load: async () => (await import('./commands/restore.js')).restoreCommand,
  },
  {
    name: 'db',
    summary: 'copy a whole database between SQLite and PostgreSQL (db copy --from … --to …)',
    load: async () => (await import('./commands/db.js')).dbCommand,
  },
  {
    name: 'score',
    summary: 'score a snapshot input document offline and print {leaderboard, weights}',
    load: async () => (await import('./commands/offline.js')).scoreCommand,
  },
  {
    name: 'verify',
    summary: 'check a snapshot against its input: digest, hash, chain, signature, rescored weights',
    load: async () => (await import('./commands/offline.js')).verifyCommand,
  },
  {
    name: 'weights',
    summary: 'print the weights on chain (uids, u16 weights, version key) from a server, live or from a snapshot',
    load: async () => (await import('./commands/weights.js')).weightsCommand,
  },
];

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `swe-scoring ${PACKAGE_VERSION}: scoring server for competitions of software-engineering agents`,
    '',
    'Usage: swe-scoring <command> [options]     (from a clone: npx swe-scoring <command>, or npm start / npm run <command>)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'swe-scoring <command> --help shows the options of each.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(PACKAGE_VERSION);
    return 0;
  }
  const listed = COMMANDS.find((c) => c.name === name);
  if (!listed) {
    console.error(`swe-scoring: unknown command ${name}\n\n${usage()}`);
    return 2;
  }
  const command = await listed.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof CliError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`swe-scoring ${name}: ${(e as Error).message}`);
      for (const line of e instanceof CliError ? e.lines : []) console.error(line);
      if (!(e instanceof CliError)) console.error(`(swe-scoring ${name} --help lists the options)`);
      return e instanceof CliError ? e.exitCode : 2;
    }
    throw e;
  }
}

/**
 * Exits with `code` once what was written to stdout and stderr has left the process. On a pipe
 * Node writes them asynchronously: an exit right after a large write (the weights on chain of a
 * big metagraph, a scored document) cut it at 64 or 128 KiB, with exit status 0, and a reader
 * such as `json.load(sys.stdin)` got broken JSON. A reader that closed early (`| head`) is not
 * waited for.
 */
export async function exitWhenWritten(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (!stream.writable) return resolve();
          stream.once('error', () => resolve());
          stream.write('', () => resolve());
        }),
    ),
  );
  process.exit(code);
}

// Run when executed (node src/cli/main.ts, bin/swe-scoring.js), not when imported (tests).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(exitWhenWritten, (e: unknown) => {
    console.error(e);
    return exitWhenWritten(1);
  });
}
