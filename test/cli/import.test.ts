// `swe-scoring import` as a child process: into a temporary database file, and through a running server.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { ADMIN_TOKEN, seedCompetition, testApp } from '../support/app.js';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { cli } from './cli.js';

const JSONL = fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url));
const JUDGE = fileURLToPath(new URL('../../fixtures/swe-atlas-qna/judge.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('swe-scoring import', () => {
  const path = join(dir, 'import.db');
  beforeAll(async () => {
    const t = await testApp({ path });
    await seedCompetition(t, 'c');
    await t.close();
  });

  it('imports the JSON Lines file into the database and prints the counts', async () => {
    const env = { DATABASE_PATH: path };
    const first = await cli('import', ['--competition', 'c', '--file', JSONL, '--stage', 'screener_1'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ imported: 124, updated: 0, unchanged: 0 });
    const again = await cli('import', ['--competition', 'c', '--file', JSONL, '--stage', 'screener_1'], env);
    expect(JSON.parse(again.stdout)).toEqual({ imported: 0, updated: 0, unchanged: 124 });
  });

  it('exits non-zero naming the row of a bad file, the missing competition, or the missing database', async () => {
    const lines = readFileSync(JSONL, 'utf8').trimEnd().split('\n');
    const row = JSON.parse(lines[4]!);
    row.language = 'cobol';
    lines[4] = JSON.stringify(row);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const res = await cli('import', ['--competition', 'c', '--file', bad], { DATABASE_PATH: path });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/nothing stored: row 5\/language/);

    const none = await cli('import', ['--competition', 'nope', '--file', JSONL], { DATABASE_PATH: path });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('competition nope does not exist');
    const noDb = await cli('import', ['--competition', 'c', '--file', JSONL], {
      DATABASE_PATH: join(dir, 'missing.db'),
    });
    expect(noDb.stderr).toContain('no database at');
    expect((await cli('import', ['--file', JSONL], {})).code).toBe(1);
  });

  it('goes through a running server with --url, the token from --token-file or the environment, never --token', async () => {
    const t = await testApp();
    await seedCompetition(t, 'live');
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    try {
      const res = await cli(
        'import',
        ['--competition', 'live', '--file', JSONL, '--complexity', 'Short', '--url', url, '--token-file', tokenFile],
        {},
      );
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({ imported: 124, updated: 0, unchanged: 0 });
      expect(res.stderr).toMatch(/^uploaded 2\.4 MiB of 2\.4 MiB \(100%\), 124 rows, .* ETA/m); // not a terminal: plain lines
      const tasks = (await t.call({ url: '/v1/competitions/live/tasks' })).body.tasks;
      expect(tasks.every((x: { complexity: string }) => x.complexity === 'short')).toBe(true);

      // Again without --complexity, token from the environment, small chunks: nothing changes.
      const again = await cli(
        'import',
        ['--competition', 'live', '--file', JSONL, '--url', url, '--chunk-mib', '0.5'],
        { SCORING_ADMIN_TOKEN: ADMIN_TOKEN },
      );
      expect(JSON.parse(again.stdout)).toEqual({ imported: 0, updated: 0, unchanged: 124 });
      expect(
        (await t.call({ url: '/v1/competitions/live/tasks' })).body.tasks.every(
          (x: { complexity: string }) => x.complexity === 'short',
        ),
      ).toBe(true);

      // --judge through the server: PUT …/judge before the upload.
      const judged = await cli('import', ['--competition', 'live', '--file', JSONL, '--url', url, '--judge', JUDGE], {
        SCORING_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect(judged.code, judged.stderr).toBe(0);
      const inForce = (await t.call({ url: '/v1/competitions/live/judge' })).body;
      expect(JSON.parse(judged.stdout).judge).toEqual({ digest: inForce.digest, version: 1, set: true });
      expect(inForce.model).toBe('GPT-6 Luna');

      const wrong = join(dir, 'wrong-token');

      writeFileSync(wrong, 'wrong-token-0123456789');
      const denied = await cli(
        'import',
        ['--competition', 'live', '--file', JSONL, '--url', url, '--token-file', wrong],
        {},
      );
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/401/);
      const onArgv = await cli(
        'import',
        ['--competition', 'live', '--file', JSONL, '--url', url, '--token', ADMIN_TOKEN],
        {},
      );
      expect(onArgv.code).toBe(1);
      expect(onArgv.stderr).toContain('--token is no longer accepted');
      expect(onArgv.stderr).toContain('--token-file');
    } finally {
      await t.close();
    }
  }, 120_000);

  it('--judge sets the shipped AA judge configuration before the tasks, once; its votes become judgeVotes; a refused one stops the import', async () => {
    const judgeDb = join(dir, 'judge.db');
    const t = await testApp({ path: judgeDb });
    await seedCompetition(t, 'aa', { name: 'AA', judgeVotes: 5 });
    await seedCompetition(t, 'three', { name: 'Three votes', judgeVotes: 3 });
    await t.close();
    const env = { DATABASE_PATH: judgeDb };
    const shipped = JSON.parse(readFileSync(JUDGE, 'utf8')) as Record<string, unknown>;
    // The edition's judge as its dataset card documents it.
    expect(shipped).toMatchObject({ model: 'GPT-6 Luna', reasoningEffort: 'xhigh', votes: 5 });
    expect(shipped.promptTemplate).toContain('{answer_date}');
    expect(shipped.outputSchema).toMatchObject({ required: ['reason', 'evidence', 'verdict'] });
    const digest = createHash('sha256').update(canonicalJson(shipped), 'utf8').digest('hex');

    const first = await cli('import', ['--competition', 'aa', '--file', JSONL, '--judge', JUDGE], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      imported: 124,
      updated: 0,
      unchanged: 0,
      judge: { digest, version: 1, set: true },
    });
    const again = await cli('import', ['--competition', 'aa', '--file', JSONL, '--judge', JUDGE], env);
    expect(JSON.parse(again.stdout).judge).toEqual({ digest, version: 1, set: false });

    // Five votes a criterion on a competition of three: the judge's votes become its judgeVotes
    // (SPEC 12: one setting), and the tasks are imported.
    const adopted = await cli('import', ['--competition', 'three', '--file', JSONL, '--judge', JUDGE], env);
    expect(adopted.code, adopted.stderr).toBe(0);
    // A configuration the store refuses stops the import.
    const refused = await cli('import', ['--competition', 'nowhere', '--file', JSONL, '--judge', JUDGE], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nowhere');
    const notJson = join(dir, 'judge.txt');
    writeFileSync(notJson, '{"model": "x"}');
    const bad = await cli('import', ['--competition', 'aa', '--file', JSONL, '--judge', notJson], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/promptTemplate/);

    const check = await testApp({ path: judgeDb });
    try {
      const judge = await check.call({ url: '/v1/competitions/aa/judge' });
      expect(judge.status).toBe(200);
      expect(judge.body).toEqual({
        ...shipped,
        competitionId: 'aa',
        version: 1,
        digest,
        recordedAt: judge.body.recordedAt,
      });
      expect((await check.call({ url: '/v1/competitions/three/judge' })).body).toMatchObject({ digest, votes: 5 });
      expect((await check.call({ url: '/v1/competitions/three' })).body).toMatchObject({ judgeVotes: 5 });
      expect((await check.call({ url: '/v1/competitions/three/tasks' })).body.tasks).toHaveLength(124);
      expect((await check.call({ url: '/v1/competitions/nowhere' })).status).toBe(404);
    } finally {
      await check.close();
    }
  }, 120_000);
});
