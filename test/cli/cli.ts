// Runs the command-line tools as a user does: a child process from the repository root.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `node --import tsx src/cli/<script>.ts ...args`, with `env` added to this process's environment. */
export function cli(script: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', `src/cli/${script}.ts`, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }));
  });
}
