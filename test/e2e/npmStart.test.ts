// `npm start` as an operator runs it, through npm: SIGTERM to the npm process reaches the server,
// which shuts down gracefully and leaves no process behind; a restart with nothing changed builds
// nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { freePort } from '../support/freePort.js';
import { SERVER_ADMIN_TOKEN } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = tempDir('npm-start');
/** Server processes seen, killed at the end if a failing test left one running. */
const servers = new Set<number>();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return what();
}

/** `npm start` on a free port, once /readyz answers 200: the npm process, its output, the server's pid. */
async function npmStart(db: string) {
  const port = await freePort();
  const npm: ChildProcess = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: db,
      SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  npm.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  // A first start may build the dashboard and compile dist/ first.
  const ready = await until(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }, 240_000);
  expect(ready, out).toBe(true);
  // The server logs its pid with every line.
  const pid = (JSON.parse(out.split('\n').find((l) => l.includes('"msg":"ready"'))!) as { pid: number }).pid;
  servers.add(pid);
  return { npm, exited, pid, output: () => out };
}

describe.skipIf(TEST_ENGINE === 'postgres')('npm start', { timeout: 300_000 }, () => {
  afterAll(() => {
    for (const pid of servers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    tmp.remove();
  });

  it('SIGTERM to the npm process stops the server gracefully, and no process is left', async () => {
    const started = await npmStart(join(tmp.dir, 'a.db'));
    expect(alive(started.pid)).toBe(true);
    started.npm.kill('SIGTERM');
    await started.exited;
    expect(await until(() => !alive(started.pid), 15_000), `server ${started.pid} still runs`).toBe(true);
    expect(started.output()).toContain('"signal":"SIGTERM"');
    expect(started.output()).toContain('database closed');
  });

  it('a restart with nothing changed builds nothing', async () => {
    const again = await npmStart(join(tmp.dir, 'a.db'));
    expect(again.output()).not.toContain('npm start: building');
    again.npm.kill('SIGTERM');
    await again.exited;
    expect(await until(() => !alive(again.pid), 15_000)).toBe(true);
  });
});
