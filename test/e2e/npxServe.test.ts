// `npx swe-scoring serve` (bin/swe-scoring.js) starts the server with the start settings of `npm
// start` (src/heap.ts) even when node was run without them: no warning that they are missing, and
// SIGTERM still shuts it down gracefully.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { START_ENV } from '../../src/heap.js';
import { freePort } from '../support/freePort.js';
import { SERVER_ADMIN_TOKEN } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = tempDir('npx-serve');
afterAll(() => tmp.remove());

it('starts with the start settings of npm start and says nothing of missing ones', async () => {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...Object.keys(START_ENV), 'NODE_OPTIONS']) delete env[name];
  const child = spawn(process.execPath, ['bin/swe-scoring.js', 'serve'], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: `${tmp.dir}/db.sqlite`,
      SCORING_ADMIN_TOKEN: SERVER_ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 60_000;
    while (!out.includes('"msg":"ready"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(out).not.toContain('start settings');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(out).toContain('database closed');
});
