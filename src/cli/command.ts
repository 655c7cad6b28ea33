// What every `swe-scoring <command>` module exports (its name and one-line summary are listed in
// src/cli/main.ts, which loads the module only to run it or print its help), and the error a
// command throws to stop with a message (exit 1) rather than a stack trace.
export interface Command {
  /** The whole text of `swe-scoring <name> --help`. */
  help: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly lines: string[] = [],
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
