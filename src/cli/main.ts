// `swe-scoring <command>`: one command line for the server and its tools. Each command is a module
// in src/cli/commands exporting {name, summary, help, run}.
import { pathToFileURL } from 'node:url';
import { PACKAGE_VERSION } from '../version.js';
import { CliError, type Command } from './command.js';
import { backupCommand } from './commands/backup.js';
import { dbCommand } from './commands/db.js';
import { demoCommand } from './commands/demo.js';
import { importCommand } from './commands/import.js';
import { restoreCommand } from './commands/restore.js';
import { serveCommand } from './commands/serve.js';
import { scoreCommand, verifyCommand } from './commands/offline.js';
import { weightsCommand } from './commands/weights.js';

export const COMMANDS: Command[] = [
  serveCommand,
  importCommand,
  demoCommand,
  backupCommand,
  restoreCommand,
  dbCommand,
  scoreCommand,
  verifyCommand,
  weightsCommand,
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
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`swe-scoring: unknown command ${name}\n\n${usage()}`);
    return 2;
  }
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
