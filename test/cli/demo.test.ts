// `npm run demo -- --no-serve` on a temporary database, the result read back through the real app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { freePort } from '../support/freePort.js';
import { cli, spawnCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run demo -- --no-serve', () => {
  const path = join(dir, 'demo.db');
  let t: TestApp;
  beforeAll(async () => {
    const run = await cli('demo', ['--no-serve'], { DATABASE_PATH: path, SCORING_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/184 tasks \(124 QnA, 60 SWE-bench-style\), 8280 runs/);
    t = await testApp({ path });
  }, 120_000);
  afterAll(async () => t?.close());

  it('seeds 124 QnA tasks with complexity by rubric size and 60 SWE-bench-style tasks, 20 per group', async () => {
    const tasks = (await t.call({ url: '/v1/competitions/demo/tasks' })).body.tasks as {
      type: string;
      complexity: string;
      criteriaCount: number;
      runCount: number;
    }[];
    const qna = tasks.filter((x) => x.type === 'swe_atlas_qna');
    expect(qna).toHaveLength(124);
    for (const x of qna) {
      expect(x.complexity).toBe(x.criteriaCount <= 8 ? 'short' : x.criteriaCount <= 12 ? 'medium' : 'long');
    }
    const swe = tasks.filter((x) => x.type === 'swebench_verified');
    expect(['short', 'medium', 'long'].map((g) => swe.filter((x) => x.complexity === g).length)).toEqual([20, 20, 20]);
    expect(tasks.every((x) => x.runCount === 45)).toBe(true); // 5 baseline + 8 miners x 5
  });

  it('ranks every miner and pays out 1 - burnRatio', async () => {
    const board = (await t.call({ url: '/v1/competitions/demo/leaderboard' })).body;
    expect(board.miners).toHaveLength(8);
    expect(board.miners.every((m: { rank: number | null }) => m.rank !== null)).toBe(true);
    const weights = (await t.call({ url: '/v1/competitions/demo/weights' })).body;
    const paid = Object.values(weights.finalWeights as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(weights.burnRatio).toBeGreaterThan(0);
    expect(paid).toBeCloseTo(1 - weights.burnRatio, 9);
  });

  it('grades QnA runs from votes, with some split criteria', async () => {
    const view = (await t.call({ url: '/v1/competitions/demo/tasks/6905333b74f22949d97baa22' })).body;
    expect(view.criteria.every((c: { graded: number }) => c.graded === 45)).toBe(true);
    expect(view.criteria.some((c: { splitRate: number }) => c.splitRate > 0)).toBe(true);
    const run = (await t.call({ url: '/v1/competitions/demo/runs/baseline.6905333b74f22949d97baa22.0' })).body;
    expect(run.criteria).toHaveLength(view.criteria.length);
  });

  it('is reproducible: a second run resets its database and seeds the same scores', async () => {
    const before = (await t.call({ url: '/v1/competitions/demo/weights' })).body;
    await t.close(); // SQLite must not hold a file the demo deletes
    const again = await cli('demo', ['--no-serve'], { DATABASE_PATH: path, SCORING_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(again.code).toBe(0);
    t = await testApp({ path });
    expect((await t.call({ url: '/v1/competitions/demo/weights' })).body).toEqual(before);
  }, 120_000);

  it('records the key its snapshots are signed with, so the identity names it for verify --identity', async () => {
    const identity = await t.call({ method: 'GET', url: '/v1/identity' });
    expect(identity.status).toBe(200);
    expect(identity.body.signingKeys).toEqual([
      expect.objectContaining({
        publicKey: expect.stringContaining('BEGIN PUBLIC KEY'),
        snapshots: expect.any(Object),
      }),
    ]);
  });

  it('refuses to reset a database that holds other competitions', async () => {
    const other = join(dir, 'real.db');
    const real = await testApp({ path: other });
    await seedCompetition(real, 'prod');
    await real.close();
    const res = await cli('demo', ['--no-serve'], { DATABASE_PATH: other, SCORING_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('is not a demo database');
    const kept = await testApp({ path: other });
    expect((await kept.call({ url: '/v1/competitions/prod' })).status).toBe(200);
    await kept.close();
  }, 60_000);
});

describe('npm run demo, serving', () => {
  it("serves with the server's settings from the environment: the door's rate limits among them", async () => {
    const port = await freePort();
    const child = spawnCli('demo', [], {
      DATABASE_PATH: join(dir, 'served.db'),
      SCORING_ADMIN_TOKEN: ADMIN_TOKEN,
      PORT: String(port),
      HOST: '127.0.0.1',
      SCORING_RATE_LIMIT_ANONYMOUS: '7',
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    try {
      const deadline = Date.now() + 100_000;
      while (!out.includes('Demo server at') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(out).toContain('Demo server at');
      const res = await fetch(`http://127.0.0.1:${port}/v1/competitions`);
      expect(res.status).toBe(200);
      // Before: the demo took none of them, and answered with the default 1200 a window.
      expect(res.headers.get('ratelimit-limit')).toBe('7');
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});
