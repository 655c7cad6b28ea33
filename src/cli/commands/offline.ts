// `score` and `verify` as commands of the one command line: they need no server and no database.
import { InputDocumentError } from '../../snapshots/parseDocument.js';
import { CliError, type Command } from '../command.js';
import { score, SCORE_HELP } from '../score.js';
import { UsageError } from '../usage.js';
import { verify, VERIFY_HELP } from '../verify.js';

/** Wrong usage exits 2, a malformed input document 1, each with its message only. */
async function run(body: () => number): Promise<number> {
  try {
    return body();
  } catch (e) {
    if (e instanceof UsageError) throw new CliError(e.message, [], 2);
    if (e instanceof InputDocumentError) throw new CliError(`input: ${e.message}`);
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') throw new CliError((e as Error).message);
    throw e;
  }
}

export const scoreCommand: Command = {
  help: SCORE_HELP,
  run: (argv) => run(() => score(argv)),
};

export const verifyCommand: Command = {
  help: VERIFY_HELP,
  run: (argv) => run(() => verify(argv)),
};
