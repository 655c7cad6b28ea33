// A server started by a command as an operator runs it (`npm start`, `npx swe-scoring serve`): a
// child process from the repository root with the server's settings, its output kept as it comes.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SERVER_ADMIN_TOKEN } from './serverProcess.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
}

/** `command args` serving `dbPath` on 127.0.0.1:`port`; `env` (this process's by default) under the server's settings. */
export function startCommand(
  command: string,
  args: string[],
  o: { port: number; dbPath: string; env?: NodeJS.ProcessEnv },
): CommandProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...(o.env ?? process.env),
      PORT: String(o.port),
      HOST: '127.0.0.1',
      DATABASE_PATH: o.dbPath,
      SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

/** Whether a process of that pid is running (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
