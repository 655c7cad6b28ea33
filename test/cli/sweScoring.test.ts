// The package's command line as a user runs it: bin/swe-scoring.js in a child process, files on disk.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreDocument } from '../../src/snapshots/scoreDocument.js';
import { sample } from '../snapshots/sample.js';
import { admin, testApp } from '../support/app.js';
import { documentOf, documentText } from '../support/documents.js';
import { otherPublicKeyPem, publicKeyPem, snapshotOf } from '../snapshots/snapshotKit.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function run(...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['bin/swe-scoring.js', ...args],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout, stderr }),
    );
  });
}

const { text, input } = snapshotOf(sample);
const snapshotFile = file('snapshot.json', text);
const inputFile = file('input.ndjson', input);
const keyFile = file('key.pem', publicKeyPem);

describe('swe-scoring', () => {
  it('score prints {leaderboard, weights} for the document, with --stages', async () => {
    const r = await run('score', inputFile, '--stages', 'screener_2');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(scoreDocument(sample, ['screener_2']))));
    // The very bytes POST /v1/score answers for the same document (API.md: "prints the same JSON").
    const t = await testApp();
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/score?stages=screener_2',
        headers: { ...admin, 'content-type': 'application/x-ndjson' },
        payload: input,
      });
      expect(res.statusCode).toBe(200);
      // `swe-scoring score doc > a.json` and the API's body are cmp-equal.
      expect(Buffer.from(r.stdout)).toEqual(res.rawPayload);
    } finally {
      await t.close();
    }
  });

  it('score prints all of a large answer into a pipe (it was cut at 64 or 128 KiB, exit 0)', async () => {
    // 2,000 miners: an answer of some 1 MB, read here through a pipe as `| jq` or a subprocess would.
    const big = file('big.ndjson', documentText({ miners: 2000, tasks: 3, runners: 2000, runsEach: 1 }));
    const r = await run('score', big);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(256 * 1024);
    const parsed = JSON.parse(r.stdout) as { leaderboard: { miners: unknown[] } };
    expect(parsed.leaderboard.miners).toHaveLength(2000);
  });

  it('score and verify keep miners named like object properties (__proto__, constructor, toString)', async () => {
    const keys = ['__proto__', 'constructor', 'toString'];
    const doc = documentOf({ miners: keys.length, tasks: 2 }, keys);
    const named = snapshotOf(doc);
    const scored = await run('score', file('named.ndjson', named.input));
    expect(scored.code).toBe(0);
    const { weights } = JSON.parse(scored.stdout) as { weights: { finalWeights: object } };
    expect(Object.keys(weights.finalWeights).sort()).toEqual([...keys].sort());
    const verified = await run('verify', file('named.json', named.text), file('named.ndjson', named.input));
    expect(verified.code).toBe(0);
  });

  it('score names the line and field of a malformed document, exit 1; a bad stage is a usage error, exit 2', async () => {
    const bad = await run('score', file('bad.ndjson', input.replace('"stage":"evaluation"', '"stage":"final"')));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/line 3: task\.stage/);
    expect((await run('score', inputFile, '--stages', 'final')).code).toBe(2);
  });

  it('verify passes a sealed snapshot with the right key', async () => {
    const r = await run('verify', snapshotFile, inputFile, '--public-key', keyFile);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +signature/m);
    expect(r.stdout).toMatch(/^ok +weights/m);
  });

  it('verify exits 1 naming the failed check: digest for a changed input, signature for another key', async () => {
    const changed = await run(
      'verify',
      snapshotFile,
      file('changed.ndjson', input.replace('"input":5', '"input":6')),
      '--public-key',
      keyFile,
    );
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/verification failed: digest/);
    const wrongKey = await run('verify', snapshotFile, inputFile, '--public-key', file('other.pem', otherPublicKeyPem));
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/verification failed: signature/);
    // A PEM key given where the identity document goes: said as such, not as a JSON parse error.
    const pemAsIdentity = await run('verify', snapshotFile, inputFile, '--identity', keyFile);
    expect(pemAsIdentity.code).toBe(1);
    expect(pemAsIdentity.stderr).toContain('a PEM key, not an identity document: give it as --public-key');
  });

  it('--help describes each command; no command is a usage error', async () => {
    expect((await run('verify', '--help')).stdout).toMatch(/^Usage: swe-scoring verify/);
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/Commands:/);
  });
});
