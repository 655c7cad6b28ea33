// `npm start` as an operator runs it, through npm: SIGTERM to the npm process reaches the server,
// which shuts down gracefully and leaves no process behind; a restart with nothing changed builds
// nothing.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, startCommand } from '../support/commandProcess.js';
import { TEST_ENGINE } from '../support/engine.js';
import { freePort } from '../support/freePort.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('npm-start');
/** Server processes seen, killed at the end if a failing test left one running. */
const servers = new Set<number>();

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
  const { child: npm, exited, output } = startCommand('npm', ['start'], { port, dbPath: db });
  // A first start may build the dashboard and compile dist/ first.
  const ready = await until(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    } catch {
      return false;
    }
  }, 240_000);
  expect(ready, output()).toBe(true);
  // The server logs its pid with every line.
  const pid = (
    JSON.parse(
      output()
        .split('\n')
        .find((l) => l.includes('"msg":"ready"'))!,
    ) as { pid: number }
  ).pid;
  servers.add(pid);
  return { npm, exited, pid, output };
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
