// `npx swe-scoring serve` (bin/swe-scoring.js) starts the server with the start settings of `npm
// start` (src/heap.ts) even when node was run without them: no warning that they are missing, and
// SIGTERM still shuts it down gracefully. The server then runs in a child process of its own; when
// the command's process is killed outright, the server stops too and frees the database.
import { afterAll, expect, it } from 'vitest';
import { START_ENV } from '../../src/heap.js';
import { alive, startCommand } from '../support/commandProcess.js';
import { freePort } from '../support/freePort.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('npx-serve');
afterAll(() => tmp.remove());

/** The command, as a process manager or a shell runs it, without the start settings in its node. */
function serve(port: number, dbPath: string) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...Object.keys(START_ENV), 'NODE_OPTIONS']) delete env[name];
  return startCommand(process.execPath, ['bin/swe-scoring.js', 'serve'], { port, dbPath, env });
}

async function until(what: string, ok: () => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it(
  'the command killed outright (SIGKILL, no signal to pass on): its server stops too and frees the database',
  { timeout: 180_000 },
  async () => {
    const port = await freePort();
    const dbPath = `${tmp.dir}/killed.sqlite`;
    const first = serve(port, dbPath);
    let server = 0;
    try {
      await until('the server is ready', () => first.output().includes('"msg":"ready"'));
      const ready = first
        .output()
        .split('\n')
        .find((line) => line.includes('"msg":"ready"'))!;
      server = (JSON.parse(ready) as { pid: number }).pid;
      expect(server).not.toBe(first.child.pid); // the server runs in a child process of the command's
      first.child.kill('SIGKILL');
      await first.exited;
      // Before: the server ran on, unseen, holding the port and the database's lock.
      await until(`server process ${server} has stopped`, () => !alive(server), 30_000);
    } finally {
      first.child.kill('SIGKILL');
      if (server && alive(server)) process.kill(server, 'SIGKILL');
    }
    // It shut down as on SIGTERM (the database closed), and a new server takes the file and the port.
    const again = serve(port, dbPath);
    try {
      await until('the second server is ready', () => again.output().includes('"msg":"ready"'));
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
    }
    expect(await again.exited).toBe(0);
  },
);

it('starts with the start settings of npm start and says nothing of missing ones', async () => {
  const port = await freePort();
  const { child, exited, output } = serve(port, `${tmp.dir}/db.sqlite`);
  try {
    await until('the server is ready', () => output().includes('"msg":"ready"'));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(output()).not.toContain('start settings');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(output()).toContain('database closed');
});
