// Runs the command line as a user does: a child process from the repository root.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * From source under tsx, or the compiled dist/cli/main.js when SCORING_TEST_SERVER_ENTRY=dist (CI
 * builds dist/ just before the tests and sets it, as for the servers: test/support/serverProcess.ts).
 * `score --help` then takes about 0.2 s of CPU instead of 0.6 s.
 */
const ARGS =
  process.env.SCORING_TEST_SERVER_ENTRY === 'dist' ? ['dist/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];

/**
 * `swe-scoring <command> ...args` (see ARGS), with `env` added to this process's environment;
 * `nodeArgs` go before the entry.
 */
export function cli(command: string, args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, ...ARGS, command, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The same as a spawned process, for tests that signal it or read its output as it comes;
 * `nodeArgs` go before the entry (`--import` of a module to load first, say).
 */
export function spawnCli(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, ...ARGS, command, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
