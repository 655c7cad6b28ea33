// Ctrl-C during `swe-scoring import --url`: the session is deleted on the server, nothing is
// stored, and the command says so.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, seedCompetition, testApp } from '../support/app.js';
import { writeBigJsonl } from './bigJsonl.js';
import { spawnCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-cancel-'));
const savedTmp = process.env.TMPDIR;
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(dir, { recursive: true, force: true });
});

it('Ctrl-C mid-upload deletes the session: nothing stored, and it says so', async () => {
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  const uploads = () => readdirSync(spool).filter((n) => n.startsWith('swe-scoring-import-'));
  process.env.TMPDIR = spool; // the in-process server spools sessions here
  const file = join(dir, 'tasks.jsonl');
  writeBigJsonl(file, 8 * 1024 * 1024);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, ADMIN_TOKEN);
  const t = await testApp();
  await seedCompetition(t, 'c');
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    // 16 KiB chunks: hundreds of requests, so the signal lands mid-upload.
    const child = spawnCli('import', [
      '--competition',
      'c',
      '--file',
      file,
      '--url',
      url,
      '--token-file',
      tokenFile,
      '--chunk-mib',
      '0.015625',
    ]);
    let stderr = '';
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('uploaded ')) resolve();
      }),
    );
    expect(uploads()).toHaveLength(1); // the session's upload, under way
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/cancelled by Ctrl-C: import session [0-9a-f-]{36} deleted on the server, nothing stored/);
    expect(stdout).toBe('');
    expect((await t.call({ url: '/v1/competitions/c/tasks' })).body.tasks).toEqual([]);
    expect(uploads()).toEqual([]);
  } finally {
    await t.close();
  }
}, 60_000);
